import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { budget } from './pace';

export { runAdmin, spawnServer, type Child } from './processes';

/** A fresh DATA_DIR; `rm()` removes it. */
export function dataDir(prefix = 'paydesk-drill-'): { dir: string; file: string; rm(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, file: join(dir, 'paydesk.sqlite'), rm: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Read-only look at the database file a server process writes (WAL: readers never block it). */
export function inspect<T>(file: string, fn: (db: SQLite.Database) => T): T {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

export interface Reply {
  status: number;
  body: unknown;
}

export async function request(base: string, method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/** A webhook receiver on loopback: answers 503 while `gated`, then acknowledges and records event ids. */
export interface Receiver {
  url: string;
  gated: boolean;
  /** While true, requests are held open unanswered (a sender's attempt stays in flight, its lease held). */
  hanging: boolean;
  /** Requests being held open right now. */
  held: number;
  attempts: number;
  delivered: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const server: Server = createServer();
  const r: Receiver = {
    url: '',
    gated: true,
    hanging: false,
    held: 0,
    attempts: 0,
    delivered: new Map(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.attempts++;
      if (r.hanging) {
        r.held++;
        res.on('close', () => r.held--);
        return;
      }
      if (r.gated) return void res.writeHead(503).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      r.delivered.set(body.id, (r.delivered.get(body.id) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  r.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hooks`;
  return r;
}

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = budget(20_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
