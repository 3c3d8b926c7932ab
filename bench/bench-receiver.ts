import { createServer, type Server } from 'node:http';

/**
 * The webhook receiver `npm run bench` delivers to: counts attempts, acknowledges each event id
 * once (first acknowledgement time kept), and can be gated to answer 503 so deliveries pile up.
 */
export interface Receiver {
  url: string;
  /** When true, answers 503 so deliveries pile up in the outbox. */
  gated: boolean;
  attempts: number;
  acked: Map<string, number>;
  server: Server;
}

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', gated: true, attempts: 0, acked: new Map(), server: createServer() };
  r.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.attempts++;
      if (r.gated) {
        res.writeHead(503).end();
        return;
      }
      let id = String(req.headers['webhook-id'] ?? req.headers['x-paydesk-event-id'] ?? '');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string };
        if (typeof body.id === 'string') id = body.id;
      } catch {
        /* keep the header id */
      }
      if (!r.acked.has(id)) r.acked.set(id, performance.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  const addr = r.server.address();
  r.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hooks`;
  return r;
}
