import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal webhook receiver on 127.0.0.1 that records every request byte for byte and
 * answers as told: used by the webhook tests and the delivery benchmark. Not a merchant
 * example (that is example-receiver.ts): it checks nothing.
 */
export interface ReceivedRequest {
  /** 1-based order of arrival. */
  n: number;
  receivedAt: number;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type ReceiverReply =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  /** Never answer (the sender's timeout fires). */
  | 'hang'
  /** Drop the connection without an answer. */
  | 'destroy';

export type Responder = (req: ReceivedRequest) => ReceiverReply;

export interface LocalReceiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** How the next requests are answered; default 200 `{"received":true}`. */
  respond: Responder;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ok: Responder = () => ({ status: 200, body: '{"received":true}' });

export async function startLocalReceiver(opts: { port?: number; path?: string; respond?: Responder; keep?: boolean } = {}): Promise<LocalReceiver> {
  const received: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const hanging = new Set<ServerResponse>();
  const self = {} as LocalReceiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { n: received.length + 1, receivedAt: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      if (opts.keep !== false) received.push(r);
      else received.length += 1;
      const reply = self.respond(r);
      for (const w of waiters.filter((x) => received.length >= x.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (reply === 'destroy') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, {
    url: `http://127.0.0.1:${port}${opts.path ?? '/webhooks'}`,
    port,
    received,
    respond: opts.respond ?? ok,
    waitFor: (count: number, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return self;
}

/** A loopback port that was free a moment ago and has nothing listening now. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
