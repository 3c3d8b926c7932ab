import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

/** Sends `chunks` (the rest after `gapMs` each) on a raw connection; resolves with what the server wrote before closing. */
function raw(port: number, first: string, opts: { dripMs?: number; maxMs: number }): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let drip: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(drip);
      clearTimeout(limit);
      resolve({ text, ms: Date.now() - started });
    };
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${opts.maxMs} ms; got ${JSON.stringify(text)}`));
    }, opts.maxMs);
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.write(first);
    // One byte of body every `dripMs`: a slow sender that never finishes.
    if (opts.dripMs) drip = setInterval(() => socket.writable && socket.write('a'), opts.dripMs);
  });
}

describe('requests that arrive too slowly, and what Node itself refuses, are answered in the envelope', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ env: { REQUEST_TIMEOUT_S: '2' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it('a body dripped one byte at a time is cut at the request timeout with 408 REQUEST_TIMEOUT', async () => {
    const head = `POST /api/v1/checkout/cash-slips HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
    const { text, ms } = await raw(port, head, { dripMs: 200, maxMs: 8000 });
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: expect.stringMatching(/did not arrive in time/) } });
    expect(ms).toBeGreaterThanOrEqual(1900);
  });

  it('slow headers get the same 408', async () => {
    const { text } = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', { maxMs: 8000 });
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it("Node's parser errors answer 400 INVALID_ARGUMENT in the envelope, not Fastify's own shape", async () => {
    const { text } = await raw(port, 'NOT-HTTP at all\r\n\r\n', { maxMs: 8000 });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({ error: { code: 'INVALID_ARGUMENT', message: 'request: is not valid HTTP/1.1' } });
    const big = await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, { maxMs: 8000 });
    expect(big.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(big.text).toContain('"code":"HEADERS_TOO_LARGE"');
  });

  it('defaults to 30 s', async () => {
    const d = await createTestApp();
    try {
      expect(d.app.server.requestTimeout).toBe(30_000);
    } finally {
      await d.close();
    }
  });
});
