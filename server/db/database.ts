import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type Pg from 'pg';
import { Migrator, type Kysely, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index';
import { mayTouchCredentials } from './credential-writes';
import { registerDirectSqlite } from './direct-sqlite';
import { GroupCommitSqliteDriver } from './sqlite-group-commit';
import { GroupCommitKysely } from './sqlite-group-kysely';
import { withStatementCache } from './statement-cache';
import { openPostgres } from './postgres';
import { registerChangeStamp, registerReadStamp } from './read-stamp';
import { refusalOf, schemaStatus } from './schema-version';
import type { Database } from './schema';

export type Db = Kysely<Database>;

// The test suite reads the change stamp from here.
export { changeStamp } from './read-stamp';

export type Engine = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Db;
  engine: Engine;
  /** The better-sqlite3 handle (backup, pragmas). On PostgreSQL reading it throws: nothing there has one. */
  sqlite: SQLite.Database;
  /** The PostgreSQL connection pool (its size and waits for `/metrics`); absent on SQLite. */
  pool?: Pg.Pool;
  close(): Promise<void>;
}

/**
 * How a connection commits. `synced` (the default, and the only one the server, the CLI and the
 * desktop app use): a commit is on disk before it returns (SQLite `synchronous = FULL`, PostgreSQL
 * `synchronous_commit` on). `testOnlyUnsynced`: for the test suite's throwaway databases only
 * (test/support/database.ts), which no test power-cuts: SQLite `synchronous = NORMAL` and
 * PostgreSQL's database default (the test clusters set it off), so thousands of test commits do
 * not each wait for the disk. Nothing reads it from the environment: an operator cannot turn it on.
 */
export type CommitDurability = 'synced' | 'testOnlyUnsynced';

/** Opens what the config names: PostgreSQL when DATABASE_URL is set, else the SQLite file in DATA_DIR. */
export function connectDatabase(
  config: { databaseUrl: string | null; databaseFile: string; databasePoolSize?: number },
  durability: CommitDurability = 'synced',
): OpenedDatabase {
  if (!config.databaseUrl) return openDatabase(config.databaseFile, durability);
  const pg = openPostgres(config.databaseUrl, { durability, poolSize: config.databasePoolSize });
  registerChangeStamp(pg.db, pg.changeStamp);
  postgresUrls.set(pg.db, config.databaseUrl);
  return {
    db: pg.db,
    engine: 'postgres',
    pool: pg.pool,
    get sqlite(): SQLite.Database {
      throw new Error('this is a PostgreSQL database: there is no SQLite handle (use pg_dump for backups, docs/deployment.md)');
    },
    close: () => pg.db.destroy(),
  };
}

/**
 * Where the data lives, for the startup line (`npm run serve`): the SQLite file, or the
 * PostgreSQL server and database, never the user or password (a log may be shared).
 */
export function describeDatabase(config: { databaseUrl: string | null; databaseFile: string }): string {
  if (!config.databaseUrl) return config.databaseFile;
  try {
    // Credentials dropped first: they are never shown, and `u:p@` before an empty host (a Unix socket) is no valid URL.
    const u = new URL(config.databaseUrl.replace(/^([a-z]+:\/\/)[^?]*@/i, '$1'));
    // A Unix-socket server is named in ?host=… (libpq style) when the URL has no host.
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default database)';
    return `PostgreSQL ${host}${u.port ? `:${u.port}` : ''}/${database}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

const sqliteFiles = new WeakMap<Db, string>();
const postgresUrls = new WeakMap<Db, string>();

/**
 * The connection URL a PostgreSQL handle was opened with, for the one dedicated connection a
 * process keeps outside the pool (LISTEN and its liveness lock, server/modules/webhooks/leases.ts);
 * undefined on SQLite.
 */
export function postgresUrlOf(db: Db): string | undefined {
  return postgresUrls.get(db);
}

/**
 * The SQLite file this handle was opened on (openDatabase), for a second, read-only connection
 * on it in a worker thread (server/modules/reports/report-runner.ts); undefined on PostgreSQL,
 * in memory, and for a handle derived from it (`withPlugin`: a test's SQL recorder), which then
 * keeps every query on itself.
 */
export function sqliteFileOf(db: Db): string | undefined {
  return sqliteFiles.get(db);
}

/**
 * The database holds webhook secrets and payers' personal data: its folder is created 0700 and
 * the file 0600 before SQLite opens it, so the -wal and -shm files SQLite creates beside it get
 * the same mode. Files left readable by an earlier version are narrowed on every open; an
 * existing folder keeps the mode its owner gave it (docs/operations.md).
 */
function restrictDatabaseFiles(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}

/** WAL pages after which a commit checkpoints (SQLite's default is 1,000). */
export const WAL_AUTOCHECKPOINT_PAGES = 300;

/** Opens (creating if needed) the SQLite file with the pragmas Paydesk relies on. */
export function openDatabase(file: string, durability: CommitDurability = 'synced'): OpenedDatabase {
  if (file !== ':memory:') restrictDatabaseFiles(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // Every COMMIT syncs the WAL (fdatasync) before it returns, so nothing is answered, evented
  // or handed to the webhook dispatcher that a power cut or an OS crash could still take back
  // (docs/operations.md "What survives a crash"). NORMAL synced the WAL only at checkpoints: a
  // commit was safe from a process crash but not from the machine stopping. A request's
  // transaction commits with the rest of its event-loop turn (sqlite-group-commit.ts), so this
  // is one sync per group, not per request (docs/performance.md "Synced commits").
  sqlite.pragma(durability === 'synced' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // The CLI and the server share the file: wait for the other's write instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  // SQLite checkpoints the WAL inside whichever commit pushes it past this many pages, and
  // that commit's request waits for the copy. Measured (docs/performance.md), mixed
  // load at 200,000 sessions, event-loop stall p99: 1,000 pages (SQLite's default) 14.5 ms,
  // 300 pages 7.8, 100 pages 6; but smaller checkpoints rewrite the hot pages more often:
  // session_create 1,700-1,780 rps at 1,000, 1,450-1,550 at 300, 1,180-1,350 at 100.
  // 300 halves the stall for ~12 % of write throughput.
  sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  // Each request's transaction is a savepoint inside the turn's group commit
  // (sqlite-group-commit.ts), and SQLite copies every page a savepoint changes into a
  // sub-journal: ~16 pages (64 KiB, just past SQLite's 64 KiB spill threshold) per session or
  // attempt create, which went to a temporary file; in memory it costs a copy. This connection's
  // other temporary storage (sorts too large for the cache) is in memory too: the large reads
  // (exports, reports) run on a connection of their own (sqliteFileOf).
  sqlite.pragma('temp_store = MEMORY');
  let writes = 0;
  const counter = { writes: 0 };
  const onWrite = (sql: string) => {
    counter.writes++;
    if (mayTouchCredentials(sql)) writes++;
  };
  const statements = withStatementCache(sqlite, onWrite);
  // Transactions start with BEGIN IMMEDIATE: they take the write lock up front, so when the CLI
  // (or a second process) writes at the same time, SQLite's busy timeout makes one wait for the
  // other instead of failing a read-then-write transaction with SQLITE_BUSY. The transactions of
  // one event-loop turn commit together (server/db/sqlite-group-commit.ts).
  const driver = new GroupCommitSqliteDriver(sqlite, statements);
  const db: Db = new GroupCommitKysely<Database>(driver);
  // The compiled hot-path statements run on the connection directly (server/db/precompiled.ts).
  registerDirectSqlite(db.getExecutor().adapter, {
    prepare: (sql) => statements.prepare(sql),
    inTransaction: () => sqlite.inTransaction,
    groupWrite: (run, alone) => driver.groupWrite(run, alone),
    afterCommit: (fn) => driver.afterCommit(fn),
  });
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  registerChangeStamp(db, (known) => `${known ?? (dataVersion.get() as number)}:${writes}`);
  registerReadStamp(db, { commitVersion: () => dataVersion.get() as number, counter });
  if (file !== ':memory:') sqliteFiles.set(db, file);
  return {
    db,
    engine: 'sqlite',
    sqlite,
    close: async () => {
      await db.destroy();
    },
  };
}

const staticProvider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Applies pending migrations and returns the names applied now (none when current). Throws when
 * the database is ahead of this build (one line naming both versions, schema-version.ts) or
 * diverges from it.
 */
export async function migrate(db: Db): Promise<string[]> {
  const refusal = refusalOf(await schemaStatus(db));
  if (refusal) throw new Error(refusal);
  const migrator = new Migrator({ db, provider: staticProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? failed?.migrationName);
    throw new Error(`database migration failed: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
