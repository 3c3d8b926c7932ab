import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * The ceilings `npm run bench` compares Paydesk against, each in its own process:
 *   json   — a bare Fastify route answering a constant JSON object;
 *   sqlite — a bare Fastify route doing one prepared better-sqlite3 insert in WAL mode with
 *            synchronous = NORMAL (no sync per commit). Paydesk's database syncs every commit
 *            (FULL, one sync per group commit); the ceiling stays unsynced, the yardstick it has
 *            always been: synced per insert it would measure the disk, not the stack.
 * Prints `listening on http://…` like the real server.
 */
const mode = process.argv[2];
if (mode !== 'json' && mode !== 'sqlite') {
  process.stderr.write('usage: ceiling-server.ts json|sqlite\n');
  process.exit(2);
}

const app = Fastify({ logger: false });
let cleanup = () => {};

if (mode === 'json') {
  const body = { id: 'cs_test_0123456789abcdefghijklmn', object: 'checkout.session', status: 'open', amount_minor: 1000, currency: 'GHS' };
  app.get('/', async () => body);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-ceiling-'));
  const db = new SQLite(join(dir, 'ceiling.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE rows (id TEXT PRIMARY KEY, amount_minor INTEGER NOT NULL, invoice_ref TEXT NOT NULL, created_at TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows (id, amount_minor, invoice_ref, created_at) VALUES (?, ?, ?, ?)');
  app.post('/', async (req, reply) => {
    const b = req.body as { amount_minor: number; invoice_ref: string };
    const id = randomBytes(12).toString('hex');
    insert.run(id, b.amount_minor, b.invoice_ref, new Date().toISOString());
    return reply.code(201).send({ id });
  });
  cleanup = () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

const stop = () => {
  void app.close().then(() => {
    cleanup();
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : 0;
process.stdout.write(`ceiling ${mode} listening on http://127.0.0.1:${port}\n`);
