import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookHttpClient, describeAttemptError, RESPONSE_EXCERPT_BYTES, type WebhookHttpClient } from '../../server/modules/webhooks/http-attempt';
import type { UrlPolicy } from '../../server/modules/webhooks/url-policy';

/**
 * The webhook HTTP client (undici) against a receiver that answers in awkward ways: what is
 * kept of an answer, when a connection is reused, how a cut or late answer ends.
 */
const policy: UrlPolicy = { mode: 'test', own: [] };
const headers = { 'content-type': 'application/json', 'user-agent': 'Paydesk-Webhooks/test' };

let server: Server;
let base: string;
let connections = 0;
/** Resolves once the connection that served /long is closed. */
let longClosed: Promise<void>;
const held: ServerResponse[] = [];
let client: WebhookHttpClient;

beforeEach(async () => {
  connections = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      if (path === '/ok') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"received":true}');
      } else if (path === '/long') {
        longClosed = new Promise((resolve) => req.socket.once('close', () => resolve()));
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`${'x'.repeat(RESPONSE_EXCERPT_BYTES - 1)}é${'y'.repeat(4000)}`);
      } else if (path === '/cut') {
        res.writeHead(502, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('abc', () => setImmediate(() => req.socket.destroy()));
      } else if (path === '/slow-body') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('started');
        held.push(res);
      } else if (path === '/hang') {
        held.push(res);
      } else if (path === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (path === '/headers') {
        res.setHeader('content-type', ['text/plain', 'application/json']);
        res.setHeader('retry-after', ['5', '7']);
        res.setHeader('x-request-id', ['r1', 'r2']);
        res.setHeader('set-cookie', 'session=secret');
        res.writeHead(429);
        res.end('slow down');
      }
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createWebhookHttpClient();
});

afterEach(async () => {
  client.close();
  for (const res of held.splice(0)) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (path: string, timeoutMs = 5_000) => client.post(`${base}${path}`, headers, '{"id":"evt_1"}', policy, timeoutMs);

describe('webhook HTTP client', () => {
  it('reuses kept-alive connections for successive attempts', async () => {
    for (let i = 0; i < 10; i++) expect(await post('/ok')).toMatchObject({ statusCode: 200, excerpt: '{"received":true}' });
    // undici's pool opens a second connection for the attempt right after the first one's answer.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('keeps 1 KiB of a longer answer, cut at a character boundary and marked, and closes that connection', async () => {
    const r = await post('/long');
    expect(r.statusCode).toBe(500);
    expect(r.excerpt).toBe(`${'x'.repeat(RESPONSE_EXCERPT_BYTES - 1)}…`); // the 2-byte é does not fit whole
    await longClosed; // the rest of the answer is not read: that connection is closed, not reused
  });

  it('an answer the receiver cuts keeps what came; a timeout once the answer started is a timeout', async () => {
    expect(await post('/cut')).toMatchObject({ statusCode: 502, excerpt: 'abc…' });
    const late = await post('/slow-body', 200).catch((err: unknown) => err);
    expect(late).toMatchObject({ name: 'TimeoutError' });
    expect(describeAttemptError(late, 200)).toBe('timed out after 200 ms');
  });

  it('a redirect is an answer: not followed, its Location kept', async () => {
    const r = await post('/redirect');
    expect(r.statusCode).toBe(302);
    expect(JSON.parse(r.responseHeaders)).toMatchObject({ location: 'http://169.254.169.254/latest/meta-data/' });
  });

  it('keeps only allow-listed headers, the first of a single-valued one, several values of another joined', async () => {
    const r = await post('/headers');
    expect(r.retryAfter).toBe('5');
    expect(JSON.parse(r.responseHeaders)).toEqual({ 'content-type': 'text/plain', date: expect.any(String), 'retry-after': '5', 'x-request-id': 'r1, r2' });
  });

  it('abortAll cuts a waiting attempt with an AbortError, and the client still sends afterwards', async () => {
    const waiting = post('/hang').catch((err: unknown) => err);
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    client.abortAll();
    expect(describeAttemptError(await waiting, 5_000)).toBe('aborted: server shutting down');
    expect(await post('/ok')).toMatchObject({ statusCode: 200 });
  });

  it('a receiver that drops the connection without answering reads as a reset, as with node:http', async () => {
    server.removeAllListeners('request');
    server.on('request', (req) => req.socket.destroy());
    const err = await post('/ok').catch((e: unknown) => e);
    expect(describeAttemptError(err, 5_000)).toBe('connection reset by the receiver (ECONNRESET)');
  });
});
