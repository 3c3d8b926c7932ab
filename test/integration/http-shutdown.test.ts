import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app';

/** During shutdown, requests on open connections get the error envelope, not Fastify's own 503 body. */
describe('a request arriving while the server shuts down', () => {
  it('is answered 503 SERVICE_UNAVAILABLE in the error envelope, and the connection closes', async () => {
    let entered!: () => void;
    const inSlowHandler = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let answeredSecond!: () => void;
    const secondAnswered = new Promise<void>((r) => (answeredSecond = r));
    let closing!: () => void;
    const closeStarted = new Promise<void>((r) => (closing = r));
    const t = await createTestApp({
      extend: (app) => {
        app.get('/api/v1/checkout/slow-probe', async () => {
          entered();
          await released;
          return { ok: true };
        });
        // Runs after the app's own preClose hooks: the shutdown has begun.
        app.addHook('preClose', async () => closing());
        app.addHook('onSend', async (req) => {
          if (req.url === '/api/v1/checkout/options') answeredSecond();
        });
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;

    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (raw += c));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    // Two pipelined requests on one keep-alive connection: the second is read after close() began.
    // Request 1 is in flight when close() begins; request 2 is pipelined behind it on the same
    // connection after that (the way a keep-alive client's next request meets a draining server).
    socket.write(`GET /api/v1/checkout/slow-probe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await inSlowHandler;
    const closed = t.close();
    await closeStarted;
    socket.write(`GET /api/v1/checkout/options HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    // Release request 1 once request 2 has been answered (or, should no hook ever see it, after a while).
    await Promise.race([secondAnswered, new Promise((r) => setTimeout(r, 3000))]);
    release();
    await ended;
    await closed;

    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(responses[1]).toMatch(/\r\nconnection: close\r\n/i);
    const body = responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('shutting down'), request_id: expect.any(String) } });
  });
});
