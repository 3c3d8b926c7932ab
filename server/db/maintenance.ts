import type { OpenedDatabase } from './database';
import { startCheckpointer, type Checkpointer, type CheckpointerOptions } from './sqlite-checkpointer';

export type { Checkpointer, CheckpointerOptions } from './sqlite-checkpointer';

/**
 * What the database needs running beside a server, started once it listens: on SQLite the WAL
 * checkpoint worker (sqlite-checkpointer.ts: the WAL is checkpointed by a worker thread, not
 * inside the event loop's commits); nothing on PostgreSQL (the server checkpoints itself).
 */
export function startMaintenance(database: OpenedDatabase, file: string, opts: CheckpointerOptions): Checkpointer | null {
  return database.engine === 'sqlite' ? startCheckpointer(database.sqlite, file, opts) : null;
}
