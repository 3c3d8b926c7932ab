import type Pg from 'pg';
import { loadPg } from '../postgres';
import { connectDatabase, openDatabase, migrate } from '../database';
import { migrations } from '../migrations/index';
import { MIGRATION_TABLE } from '../schema-version';
import { PROGRESS_TABLE, quoteIdent } from './catalog';

/**
 * The PostgreSQL side of `db:copy`: one plain connection that parses no value (every value comes
 * back as the server's text: values.ts), the target's schema version, and whether it already
 * holds Paydesk rows. The batches commit without waiting for the disk (synchronous_commit off: a
 * crash of the server loses whole batches, which --resume copies again); the copy's last
 * transaction, which says it is complete, waits (copy.ts).
 */
export async function connectTarget(url: string): Promise<Pg.Client> {
  const { Client } = loadPg();
  const client = new Client({
    connectionString: url,
    application_name: 'paydesk db:copy',
    options: '-c synchronous_commit=off',
    types: { getTypeParser: () => (v: string) => v } as Pg.CustomTypesConfig,
  });
  await client.connect();
  return client;
}

export async function tableExists(client: Pg.Client, name: string): Promise<boolean> {
  const r = await client.query<{ oid: string | null }>(`SELECT to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))::text AS oid`, [name]);
  return r.rows[0]?.oid != null;
}

/** The target's applied migrations (none on an empty database). */
export async function targetMigrations(client: Pg.Client): Promise<string[]> {
  if (!(await tableExists(client, MIGRATION_TABLE))) return [];
  const r = await client.query<{ name: string }>(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`);
  return r.rows.map((row) => row.name);
}

export function targetSchemaRefusal(applied: string[], mode: 'copy' | 'verify'): string | null {
  const known = Object.keys(migrations);
  const unknown = applied.filter((n) => !known.includes(n));
  if (unknown.length > 0) return `the target database is newer than this build (it has migration ${unknown[unknown.length - 1]}): copy with the Paydesk version that migrated it`;
  if (mode === 'verify' && applied.length !== known.length) return `the target database is not at this build's schema (at ${applied[applied.length - 1] ?? 'no migration'}): nothing to verify yet`;
  return null;
}

/**
 * Rows a fresh migration writes (the seeded banks and branches), per table: what an empty
 * Paydesk database holds. Read by migrating a database in memory with this build's migrations,
 * so a migration that seeds another table is known here without a list.
 */
export async function seedRowCounts(): Promise<Map<string, number>> {
  const fresh = openDatabase(':memory:');
  try {
    await migrate(fresh.db);
    const names = fresh.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_migration%'").pluck().all() as string[];
    const counts = new Map<string, number>();
    for (const name of names) {
      const n = fresh.sqlite.prepare(`SELECT count(*) FROM ${quoteIdent(name)}`).pluck().get() as number;
      if (n > 0) counts.set(name, n);
    }
    return counts;
  } finally {
    await fresh.close();
  }
}

/**
 * The first table of the target holding more rows than a fresh migration leaves there, or null
 * when it holds none: a database a desk was copied into, or one the central server has used.
 */
export async function firstHeldTable(client: Pg.Client, seeds: Map<string, number>): Promise<{ table: string; rows: string } | null> {
  const tables = await client.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely\\_migration%' AND tablename <> $1 ORDER BY tablename`,
    [PROGRESS_TABLE],
  );
  for (const { name } of tables.rows) {
    const seeded = seeds.get(name) ?? 0;
    const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${quoteIdent(name)} LIMIT ${seeded + 1}) x`);
    if (Number(r.rows[0]?.n ?? 0) > seeded) return { table: name, rows: r.rows[0]!.n };
  }
  return null;
}

/** Migrates the target with this build's migrations (the same as `db:migrate` with DATABASE_URL). */
export async function migrateTarget(url: string): Promise<string[]> {
  const database = connectDatabase({ databaseUrl: url, databaseFile: '' });
  try {
    return await migrate(database.db);
  } finally {
    await database.close();
  }
}
