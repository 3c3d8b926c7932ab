import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { sqliteFileOf, type Db } from './database';

/** How often the background checkpointer copies the WAL into the database file. */
export const CHECKPOINT_INTERVAL_MS = 500;

/**
 * The server's own connection checkpoints only past this many WAL pages (~40 MB): a safety net
 * for when the background checkpointer is behind (a long reader holds old frames) or gone.
 * SQLite's default is 1000 pages, and that checkpoint ran inside whichever commit crossed it.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** checkpoint-worker.mjs beside this file (source) or in out/server/ (the bundle, and the desktop app's out/main/). */
function checkpointScript(): URL | null {
  for (const rel of ['./checkpoint-worker.mjs', '../server/checkpoint-worker.mjs']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

/**
 * SQLite (a file): WAL checkpoints move to a worker thread with a connection of its own
 * (checkpoint-worker.mjs), off the event loop; the server's connection keeps only a distant
 * automatic checkpoint as a safety net. Nothing on PostgreSQL or in memory; where the worker
 * cannot start, SQLite's default automatic checkpoint stays as it was.
 */
export async function startCheckpointer(db: Db, logger: FastifyBaseLogger | false): Promise<Checkpointer | null> {
  const file = sqliteFileOf(db);
  const script = file ? checkpointScript() : null;
  if (!file || !script) return null;
  const w = new Worker(script, { workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
  w.unref();
  const up = await new Promise<boolean>((resolve) => {
    w.on('message', (m: { t: string; message?: string }) => {
      if (m.t === 'ready') resolve(true);
      else if (m.t === 'error' && logger) logger.warn({ reason: m.message }, 'background WAL checkpoint failed (retried next round)');
    });
    w.once('error', (err) => {
      if (logger) logger.error({ err }, 'WAL checkpointer stopped: the server connection checkpoints by itself again');
      resolve(false);
      void sql`PRAGMA wal_autocheckpoint = 1000`.execute(db).catch(() => undefined);
    });
    w.once('exit', () => resolve(false));
  });
  if (!up) return null;
  await sql`PRAGMA wal_autocheckpoint = ${sql.raw(String(FALLBACK_AUTOCHECKPOINT_PAGES))}`.execute(db);
  return {
    stop: async () => {
      const stopped = new Promise<void>((resolve) => {
        w.once('exit', () => resolve());
        w.on('message', (m: { t: string }) => {
          if (m.t === 'stopped') void w.terminate();
        });
      });
      w.postMessage('stop');
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 5_000).unref())]);
      await w.terminate();
      await sql`PRAGMA wal_autocheckpoint = 1000`.execute(db).catch(() => undefined);
    },
  };
}
