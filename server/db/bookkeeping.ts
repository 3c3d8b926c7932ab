import type { Transaction } from 'kysely';
import type { Db } from './database';
import type { Database } from './schema';
import { GroupCommitKysely } from './sqlite-group-kysely';

/**
 * Runs `callback` in a transaction of bookkeeping: writes a power cut may take back at no cost
 * but a repeat of work already done, and that nothing is answered or sent on the strength of.
 * The webhook dispatcher's leases (claims) and attempt outcomes are such writes: lost, a
 * delivery is claimed and sent again (deliveries are at-least-once; receivers dedupe on the event
 * id), never one whose event is not on disk, since every event commits synced with its request.
 *
 * On SQLite its group commits without a sync of the WAL when it holds only bookkeeping
 * (sqlite-group-commit.ts): the event loop does not wait for the disk. It is on disk at the next
 * synced commit or checkpoint, and a process crash loses nothing (the WAL is written at COMMIT).
 * Elsewhere (PostgreSQL, a handle with plugins) it is an ordinary transaction.
 */
export function bookkeeping<T>(db: Db, callback: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const builder = db instanceof GroupCommitKysely ? db.relaxedTransaction() : db.transaction();
  return builder.execute(callback);
}
