import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { load } from '../../bench/http-load';

// The PostgreSQL bench's load generator, against a real Fastify on loopback: what it counts must
// be what the server answered.

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(setup: (app: FastifyInstance) => void): Promise<string> {
  app = Fastify();
  setup(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}

describe('bench load generator', () => {
  it('counts every answered request, split over the targets, and reads bodies by their byte length', async () => {
    let served = 0;
    const base = await serve((a) => {
      a.post<{ Body: { n: number } }>('/echo', async (req) => {
        served++;
        // Multi-byte characters: the body's length in bytes is not its length in characters.
        return { n: req.body.n, text: 'Accra — ₵ 10,00 ' + 'é'.repeat(req.body.n % 7) };
      });
    });
    let n = 0;
    const seen: number[] = [];
    const r = await load({
      targets: [base, base],
      connections: 4,
      durationS: 0.5,
      request: () => ({ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: ++n }) }),
      onResponse: (status, body) => {
        expect(status).toBe(200);
        const parsed = JSON.parse(body) as { n: number; text: string };
        expect(parsed.text.endsWith('é'.repeat(parsed.n % 7))).toBe(true);
        seen.push(parsed.n);
      },
    });
    expect(r.errors).toBe(0);
    expect(r.requests).toBeGreaterThan(20);
    expect(r.requests).toBe(seen.length);
    // Requests still in flight when the window closed are served but not counted: at most one
    // per connection.
    expect(served - r.requests).toBeGreaterThanOrEqual(0);
    expect(served - r.requests).toBeLessThanOrEqual(4);
    expect(new Set(seen).size).toBe(seen.length);
    expect(r.rps).toBeGreaterThan(0);
    expect(r.p99_ms).toBeGreaterThanOrEqual(r.p50_ms);
  });

  it('counts answers other than 2xx as errors', async () => {
    let i = 0;
    const base = await serve((a) => {
      a.get('/flaky', async (_req, reply) => (i++ % 2 === 0 ? { ok: true } : reply.code(503).send({ error: 'busy' })));
    });
    let ok = 0;
    let failed = 0;
    const r = await load({
      targets: [base],
      connections: 1,
      durationS: 0.3,
      request: () => ({ method: 'GET', path: '/flaky', headers: {} }),
      onResponse: (status) => (status === 200 ? ok++ : failed++),
    });
    expect(failed).toBeGreaterThan(0);
    expect(r.errors).toBe(failed);
    expect(r.requests).toBe(ok + failed);
  });

  it('opens the connection again when the server closes it after an answer', async () => {
    const base = await serve((a) => {
      a.get('/once', async (_req, reply) => reply.header('connection', 'close').send({ ok: true }));
    });
    const r = await load({ targets: [base], connections: 2, durationS: 0.4, request: () => ({ method: 'GET', path: '/once', headers: {} }) });
    expect(r.errors).toBe(0);
    expect(r.requests).toBeGreaterThan(4);
  });

  it('counts a request left unanswered past the timeout as an error and goes on', async () => {
    let calls = 0;
    const base = await serve((a) => {
      a.get('/slow', async () => {
        // The first request hangs past the timeout (and the run); the rest answer at once.
        if (calls++ === 0) await new Promise((resolve) => setTimeout(resolve, 3_000));
        return { ok: true };
      });
    });
    // The watchdog looks once a second: the hung request is given up at its first look.
    const r = await load({ targets: [base], connections: 1, durationS: 2.5, timeoutMs: 800, request: () => ({ method: 'GET', path: '/slow', headers: {} }) });
    expect(r.errors).toBe(1);
    expect(r.requests).toBeGreaterThan(0);
  });

  it('stops with the reason on an answer without Content-Length', async () => {
    const base = await serve((a) => {
      a.get('/stream', async (_req, reply) => reply.send(Readable.from(['a', 'b'])));
    });
    await expect(load({ targets: [base], connections: 1, durationS: 1, request: () => ({ method: 'GET', path: '/stream', headers: {} }) })).rejects.toThrow(
      'a response without Content-Length: HTTP/1.1 200 OK',
    );
  });
});
