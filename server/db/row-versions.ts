import type Pg from 'pg';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from './database';
import { directPostgresOf, onPooledClient } from './direct-postgres';
import { isPostgres } from './engine';
import { precompiled } from './precompiled';

/**
 * What a session row looks like now, as a version an answer built from it can be kept by
 * (server/http/kept-answers.ts), where this process does not see every write: on PostgreSQL other
 * instances write unseen, so a kept answer is served again only after asking the row's version,
 * one short statement instead of reading, converting and serialising the row. The version is the
 * `xmin` of the row version (the transaction that wrote it: every UPDATE writes a new one) with
 * the row's `updated_at`, so two contents of one row never share a version. None where answers
 * are kept by the read stamp instead (SQLite, server/db/read-stamp.ts) and on a handle derived
 * from the opened one (a test's recorder: no caching).
 */
const VERSION = sql<string>`xmin::text || ' ' || updated_at`;

/** One session row's version, when it is the merchant's. */
const sessionVersion = precompiled((db, p: { id: string; merchantId: string }) =>
  db.selectFrom('checkout_sessions').select(VERSION.as('v')).where('id', '=', p.id).where('merchant_id', '=', p.merchantId),
);

/** The versions of several session rows in one statement, each with its merchant. */
const sessionVersions = precompiled((db, p: { ids: string[] }) =>
  db.selectFrom('checkout_sessions').select(['id', 'merchant_id', VERSION.as('v')]).where(sql<boolean>`id = any(${p.ids})`),
);

interface Asker {
  merchantId: string;
  resolve(version: string | undefined): void;
  reject(err: unknown): void;
}

/** Asks not sent yet, by session id. */
interface Batch {
  ids: Map<string, Asker[]>;
  asks: number;
}

/**
 * The batch of each pool still open to new asks. Merchants and payer pages poll their sessions,
 * so under load many version asks arrive at once: each joins the open batch, which is sent, as
 * one statement, once the event loop has handled what arrived with it (setImmediate) and a pooled
 * client is free. Every ask in it arrived before its statement ran, so each answer is as current
 * as a statement of its own would have given (a write committed before the ask is seen). One ask
 * alone runs the one-row statement, as before; a batch holds at most BATCH_MAX asks.
 */
const open = new WeakMap<Pg.Pool, Batch>();
const BATCH_MAX = 256;

async function send(db: Db, pool: Pg.Pool, batch: Batch): Promise<void> {
  try {
    await new Promise((resolve) => setImmediate(resolve));
    // A read: run again on the next connection when the one it took is found dead.
    await onPooledClient(pool, true, (client) => {
      // Sent now: later asks start a batch of their own.
      if (open.get(pool) === batch) open.delete(pool);
      return answer(db, client, batch);
    });
  } catch (err) {
    if (open.get(pool) === batch) open.delete(pool);
    for (const askers of batch.ids.values()) for (const a of askers) a.reject(err);
  }
}

/** Resolves every ask of the batch from one statement (one per merchant for a batch of one id). */
async function answer(db: Db, client: Pg.PoolClient, batch: Batch): Promise<void> {
  const ids = [...batch.ids.keys()];
  if (ids.length === 1) {
    const id = ids[0]!;
    const askers = batch.ids.get(id)!;
    for (const merchantId of new Set(askers.map((a) => a.merchantId))) {
      const { sql: text, parameters } = sessionVersion.statement(db, { id, merchantId });
      const v = (await client.query<{ v: string }>(text, parameters as unknown[])).rows[0]?.v;
      for (const a of askers) if (a.merchantId === merchantId) a.resolve(v);
    }
    return;
  }
  const { sql: text, parameters } = sessionVersions.statement(db, { ids });
  const rows = new Map((await client.query<{ id: string; merchant_id: string; v: string }>(text, parameters as unknown[])).rows.map((r) => [r.id, r]));
  for (const [id, askers] of batch.ids) {
    const row = rows.get(id);
    for (const a of askers) a.resolve(row !== undefined && row.merchant_id === a.merchantId ? row.v : undefined);
  }
}

/** The version of the merchant's session row now (undefined: no version here, or not the merchant's session). */
export function sessionRowVersion(db: Db, merchantId: string, id: string): Promise<string | undefined> {
  const pool = directPostgresOf(db);
  if (pool === undefined) return Promise.resolve(undefined);
  let batch = open.get(pool);
  if (batch === undefined || batch.asks >= BATCH_MAX) {
    batch = { ids: new Map(), asks: 0 };
    open.set(pool, batch);
    void send(db, pool, batch);
  }
  const into = batch;
  return new Promise<string | undefined>((resolve, reject) => {
    const asker = { merchantId, resolve, reject };
    const askers = into.ids.get(id);
    if (askers === undefined) into.ids.set(id, [asker]);
    else askers.push(asker);
    into.asks++;
  });
}

/**
 * A read of session rows that also selects each row's version, as the column `row_version`, in
 * the same statement (PostgreSQL; absent elsewhere): what the answer built from the row is then
 * kept by. Call it in a precompiled builder.
 */
export function selectRowVersion<DB, TB extends keyof DB, O>(db: Db, q: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O & { row_version?: string }> {
  const versioned = isPostgres(db) ? q.select(VERSION.as('row_version') as never) : q;
  return versioned as unknown as SelectQueryBuilder<DB, TB, O & { row_version?: string }>;
}

/** The version `selectRowVersion` read with `row`, when `db` keeps answers by it. */
export const rowVersionOf = (db: Db, row: { row_version?: string }): string | undefined => (directPostgresOf(db) === undefined ? undefined : row.row_version);
