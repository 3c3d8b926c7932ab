import { sql } from 'kysely';
import type { Dialect } from './types';

export const postgresDialect: Dialect = {
  engine: 'postgres',
  greatest: 'GREATEST',
  oneStatementWrites: true,
  jsonRows: (json) => ({
    from: sql`jsonb_array_elements(${json}::jsonb) AS e`,
    at: (i) => sql`e->>${sql.raw(String(i))}`,
    integerAt: (i) => sql`(e->>${sql.raw(String(i))})::bigint`,
    where: sql``,
  }),
  // READ COMMITTED, not the writers' SERIALIZABLE (server/db/postgres.ts): each statement reads
  // what is committed once the lock is held, and a job that read a row a writer is changing would
  // otherwise be an SSI conflict that could abort the writer.
  exclusiveJob: (db, name, fn) =>
    db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`paydesk:${name}`}))`.execute(trx);
        return fn(trx);
      }),
  async lockTable(trx, table) {
    await sql`LOCK TABLE ${sql.table(table)} IN EXCLUSIVE MODE`.execute(trx);
  },
  async sizes(db) {
    const rows = await sql<{ name: string; bytes: string }>`SELECT relname AS name, pg_total_relation_size(oid)::text AS bytes FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`.execute(db);
    const total = Number((await sql<{ n: string }>`SELECT pg_database_size(current_database())::text AS n`.execute(db)).rows[0]?.n ?? 0);
    return { tables: new Map(rows.rows.map((r) => [r.name, Number(r.bytes)])), total };
  },
  async notify(trx, channel) {
    await sql`select pg_notify(${channel}, '')`.execute(trx);
  },
};
