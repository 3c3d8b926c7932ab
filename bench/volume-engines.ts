import { statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { connectDatabase, migrate, openDatabase, type Db } from '../server/db/database';
import { randomIds } from '../server/lib/ids';
import { startTestServer, withDatabase, type TestServer } from '../test/support/postgres-cluster';
import { seedVolume } from './volume-seed';
import { seedVolumePostgres } from './volume-seed-postgres';
import { SEEDED_TABLES, type SeedContext } from './volume-shapes';

/**
 * The engine half of `npm run bench:volume` (bench/volume.ts): where the data lives, how it is
 * seeded, how big it is. SQLite: the file in the bench's temp DATA_DIR. PostgreSQL
 * (`--engine postgres`): a fresh database on PAYDESK_BENCH_DATABASE_URL, the machine's server on
 * 127.0.0.1:5432 or a throwaway cluster (test/support/postgres-cluster.ts), migrated with the project's
 * migrations; dropped at the end unless `--keep-database`.
 */
export type { SeedContext } from './volume-shapes';

export interface Seeded {
  counts: Record<string, number>;
  extra: Record<string, unknown>;
  /** The seeded database, for the sweeper's tick and the lookups the bench needs. */
  db: Db;
  /** `{ metric, mb, extra }` for the size line. */
  size(): Promise<{ metric: string; mb: number; extra: Record<string, unknown> }>;
  /** The merchant's session at `offset` in the list's order (created_at desc, id desc). */
  sessionAt(merchantId: string, offset: number): Promise<{ id: string; created_at: string }>;
  /** The first row of a query written with `?` placeholders (the cursor positions of deep pages). */
  first<T>(query: string, params: unknown[]): Promise<T>;
  /** Writes the engine's own dirty pages out to the OS (PostgreSQL's shared buffers; SQLite writes through). */
  checkpoint?(): Promise<void>;
  close(): Promise<void>;
}

export interface VolumeEngine {
  name: 'sqlite' | 'postgres';
  /** Environment for runAdmin and spawnServer (DATABASE_URL on PostgreSQL). */
  env: Record<string, string>;
  seed(ctx: SeedContext): Promise<Seeded>;
  dispose(): Promise<void>;
}

const endpointRow = (integrationId: string) => {
  const now = new Date().toISOString();
  return [`we_${randomIds.token('', 20)}`, integrationId, 'https://hooks.example.com/paydesk', `whsec_${randomIds.token('', 32)}`, 'disabled', 'bench', now, now];
};
const ENDPOINT_INSERT = 'INSERT INTO webhook_endpoints (id, integration_id, url, secret, status, disabled_reason, created_at, updated_at) VALUES';

export function sqliteEngine(dir: string): VolumeEngine {
  const file = join(dir, 'paydesk.sqlite');
  return {
    name: 'sqlite',
    env: {},
    seed: async (ctx) => {
      const opened = openDatabase(file);
      const endpoint = endpointRow(ctx.integrationId);
      opened.sqlite.prepare(`${ENDPOINT_INSERT} (?, ?, ?, ?, ?, ?, ?, ?)`).run(...endpoint);
      const branch = opened.sqlite.prepare('SELECT id FROM branches LIMIT 1').get() as { id: string };
      const counts = seedVolume({ ...ctx, sqlite: opened.sqlite, endpointId: endpoint[0]!, branchId: branch.id });
      opened.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      return {
        counts,
        extra: {},
        db: opened.db,
        size: async () => {
          const mb = statSync(file).size / 1e6;
          return { metric: 'file_mb_per_million_sessions', mb, extra: { file_mb: Math.round(mb * 100) / 100 } };
        },
        sessionAt: async (merchantId, offset) =>
          opened.sqlite.prepare('SELECT id, created_at FROM checkout_sessions WHERE merchant_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?').get(merchantId, offset) as { id: string; created_at: string },
        first: async <T>(query: string, params: unknown[]) => opened.sqlite.prepare(query).get(...params) as T,
        close: () => opened.close(),
      };
    },
    dispose: async () => undefined,
  };
}

export async function postgresEngine(keep: boolean, note: (msg: string) => void): Promise<VolumeEngine> {
  const server: TestServer = await startTestServer(process.env.PAYDESK_BENCH_DATABASE_URL);
  const name = `paydesk_volume_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server.url });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(server.url, name);
  const migrated = connectDatabase({ databaseUrl: url, databaseFile: '' });
  await migrate(migrated.db);
  await migrated.close();
  note(`PostgreSQL database ${name} (${server.url.replace(/\/[^/]*$/, '')})`);
  return {
    name: 'postgres',
    env: { DATABASE_URL: url },
    seed: async (ctx) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const endpoint = endpointRow(ctx.integrationId);
        await client.query(`${ENDPOINT_INSERT} ($1, $2, $3, $4, $5, $6, $7, $8)`, endpoint);
        const branch = (await client.query<{ id: string }>('SELECT id FROM branches LIMIT 1')).rows[0]!;
        const { counts, phases } = await seedVolumePostgres({ ...ctx, client, endpointId: endpoint[0]!, branchId: branch.id });
        const opened = connectDatabase({ databaseUrl: url, databaseFile: '' });
        const one = async (text: string, params: unknown[]) => (await client.query(text, params)).rows[0];
        return {
          counts,
          extra: { phases_s: phases },
          db: opened.db,
          size: async () => {
            const db = (await one('SELECT pg_database_size(current_database()) AS b', [])) as { b: string };
            const tables = (await client.query<{ t: string; b: string }>('SELECT relname AS t, pg_total_relation_size(oid) AS b FROM pg_class WHERE relname = ANY($1) AND relkind = $2 ORDER BY 2 DESC', [SEEDED_TABLES, 'r'])).rows;
            const mb = Number(db.b) / 1e6;
            return { metric: 'database_mb_per_million_sessions', mb, extra: { database_mb: Math.round(mb * 100) / 100, tables_mb: Object.fromEntries(tables.map((r) => [r.t, Math.round(Number(r.b) / 1e5) / 10])) } };
          },
          sessionAt: async (merchantId, offset) => (await one('SELECT id, created_at FROM checkout_sessions WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET $2', [merchantId, offset])) as { id: string; created_at: string },
          first: async <T>(query: string, params: unknown[]) => {
            let n = 0;
            return (await one(query.replace(/\?/g, () => `$${++n}`), params)) as T;
          },
          // PostgreSQL's own dirty pages to the OS, which the bench then flushes (volume.ts).
          checkpoint: async () => {
            await client.query('CHECKPOINT');
          },
          close: async () => {
            await opened.close();
            await client.end();
          },
        };
      } catch (err) {
        await client.end();
        throw err;
      }
    },
    dispose: async () => {
      if (keep) note(`kept: DATABASE_URL=${url}`);
      else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      if (!keep) await server.stop();
    },
  };
}
