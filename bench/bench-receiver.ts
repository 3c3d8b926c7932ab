import { createServer, type ServerResponse, type Server } from 'node:http';

/**
 * The webhook receiver `npm run bench` delivers to: counts attempts, acknowledges each event id
 * once (first acknowledgement time kept), and starts gated so deliveries pile up.
 *
 * While gated it answers nothing: each request waits (the dispatcher's `concurrency` of them
 * at a time), so the rest of the backlog stays due in the outbox and is all due when `open()`
 * answers the waiting ones. (A receiver that answered 503 instead sent each delivery into the
 * 1 s retry schedule, so at opening most of the backlog was not due yet and the figure was
 * that 1 s, not the dispatcher: 2,000 events ≈ 2,000 events/s whatever the dispatcher did.)
 */
export interface Receiver {
  url: string;
  readonly gated: boolean;
  /** Requests received (answered or waiting). */
  attempts: number;
  /** performance.now() when a waiting request was last dropped by the dispatcher (its attempt timed out), else null. */
  lastDropped: number | null;
  acked: Map<string, number>;
  /** Answers every waiting request, and every later one, with 200. */
  open(): void;
  server: Server;
}

export async function startReceiver(): Promise<Receiver> {
  const waiting = new Set<{ res: ServerResponse; id: string }>();
  const ack = (res: ServerResponse, id: string) => {
    if (!r.acked.has(id)) r.acked.set(id, performance.now());
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  };
  const r: Receiver = {
    url: '',
    gated: true,
    attempts: 0,
    lastDropped: null,
    acked: new Map(),
    server: createServer(),
    open() {
      (r as { gated: boolean }).gated = false;
      for (const w of waiting) ack(w.res, w.id);
      waiting.clear();
    },
  };
  r.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.attempts++;
      let id = String(req.headers['webhook-id'] ?? req.headers['x-paydesk-event-id'] ?? '');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string };
        if (typeof body.id === 'string') id = body.id;
      } catch {
        /* keep the header id */
      }
      if (!r.gated) return ack(res, id);
      const w = { res, id };
      waiting.add(w);
      res.on('close', () => {
        if (waiting.delete(w)) r.lastDropped = performance.now();
      });
    });
  });
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  const addr = r.server.address();
  r.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hooks`;
  return r;
}
