import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type Pg from 'pg';
import {
  DeleteQueryNode,
  InsertQueryNode,
  Kysely,
  RawNode,
  UpdateQueryNode,
  type KyselyConfig,
  type KyselyPlugin,
  type OperationNode,
  type TransactionBuilder,
} from 'kysely';
import { collectAfterCommit } from './after-commit';
import { registerDirectPostgres } from './direct-postgres';
import { PaydeskPostgresDialect } from './postgres-driver';
import { roundTrips } from './round-trips';
import { isDeadConnectionError } from './connection-errors';
import { CREDENTIAL_TABLES, mayTouchCredentials } from './credential-writes';
import type { Database } from './schema';
import { transactionRetries } from './transaction-retries';
import { isPreparedStatementMiss, useNamedStatements } from './prepared-statements';
export { transactionRetries } from './transaction-retries';

/**
 * PostgreSQL behind Kysely (DATABASE_URL=postgres://…, docs/deployment.md).
 *
 * SQLite serialises every write transaction of a process (BEGIN IMMEDIATE on one connection);
 * PostgreSQL runs a pool's transactions side by side, across instances too. So that every
 * read-then-write the domain does stays as correct as it is on SQLite, **every transaction runs
 * at SERIALIZABLE** and is retried from the start when PostgreSQL reports a serialization
 * failure (40001) or a deadlock (40P01): the loser of a race re-runs and sees the winner's
 * committed rows (an idempotent replay, a STATE_CONFLICT, …). Transaction callbacks therefore
 * must not have effects outside the database that a re-run would repeat: what must happen
 * after the commit goes through `afterCommit` (server/db/after-commit.ts), run once, after it.
 */

/** How long a revoked API key may still be accepted, or a changed fee rule still quoted, by another instance's cache. */
export const CREDENTIAL_CACHE_TTL_MS = 2_000;
export const MAX_TRANSACTION_ATTEMPTS = 30;
/** Waiting for a new connection (docs/deployment.md, failover). */
const CONNECT_TIMEOUT_MS = 5_000;
/** No request statement takes near this; one that does is cut and answered 503. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** No transaction waits on anything outside the database; one left open this long is a bug or a hung process. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 15_000;
const RETRYABLE = new Set(['40001', '40P01']);

function isRetryableTransactionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && RETRYABLE.has(code)) || isPreparedStatementMiss(err);
}

/**
 * The pg driver, loaded the first time a PostgreSQL database is opened: an instance on SQLite
 * (the default) never evaluates it, ~40 ms of its cold start. A require rather than
 * `import()` because opening a database is synchronous; the server bundle leaves it to
 * node_modules (scripts/build-server.mjs).
 */
let driver: typeof Pg | undefined;
export const loadPg = (): typeof Pg => (driver ??= createRequire(import.meta.url)('pg') as typeof Pg);

/** int8 (counts, money) and numeric (sums, averages) come back as JS numbers, as on SQLite. */
const INT8 = 20;
const NUMERIC = 1700;
const toNumber = (v: string) => (v === null ? null : Number(v));
/**
 * pg asks for a parser per column of every result (its RowDescription), which on a session lookup
 * was several per cent of the server's CPU: the text-format parsers are kept per type.
 */
const textParsers = new Map<number, unknown>();
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    if (format === 'binary') return loadPg().types.getTypeParser(oid, format);
    let parser = textParsers.get(oid);
    if (parser === undefined) textParsers.set(oid, (parser = loadPg().types.getTypeParser(oid, 'text')));
    return parser;
  }) as typeof Pg.types.getTypeParser,
};

/**
 * `staleLimit`: how many dead pooled connections one transaction may meet before its BEGIN
 * succeeds (the pool's size: each one met is dropped). Nothing of the transaction ran on them, so
 * it starts again on the next connection instead of answering 503: after a backend restart, the
 * first request on each idle connection would otherwise fail.
 */
function retrying<DB>(builder: TransactionBuilder<DB>, staleLimit: number): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return async <T>(callback: Parameters<TransactionBuilder<DB>['execute']>[0]): Promise<T> => {
          let stale = 0;
          for (let attempt = 1; ; attempt++) {
            // Set once BEGIN has succeeded and the callback runs: before that, nothing has been sent but BEGIN.
            let began = false;
            try {
              const queue: Array<() => void> = [];
              const value = (await target.execute((trx) => {
                began = true;
                return collectAfterCommit(trx as unknown as Kysely<Database>, queue, () => callback(trx));
              })) as T;
              for (const fn of queue) fn();
              return value;
            } catch (err) {
              if (!began && isDeadConnectionError(err) && stale < staleLimit) {
                stale++;
                attempt--;
                continue;
              }
              if (!isRetryableTransactionError(err) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw err;
              transactionRetries.count++;
              // Jittered backoff: 1, 2, 4 … 64 ms ceilings, so racing retries spread out.
              await sleep(Math.random() * Math.min(64, 2 ** (attempt - 1)));
            }
          }
        };
      }
      if (prop === 'setIsolationLevel' || prop === 'setAccessMode') {
        return (value: never) => retrying((target[prop] as (v: never) => TransactionBuilder<DB>).call(target, value), staleLimit);
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** Kysely whose transactions are SERIALIZABLE and retried on serialization failures, and on a pooled connection found dead at BEGIN (see above). */
class SerializableKysely<DB> extends Kysely<DB> {
  constructor(
    config: KyselyConfig,
    private readonly poolSize: number,
  ) {
    super(config);
  }

  override transaction(): TransactionBuilder<DB> {
    return retrying(super.transaction().setIsolationLevel('serializable'), this.poolSize);
  }
}

function targetTable(node: OperationNode): string | undefined {
  const named = (n: unknown): string | undefined => {
    const x = n as { kind?: string; table?: { identifier?: { name?: string } }; node?: unknown } | undefined;
    if (!x) return undefined;
    if (x.kind === 'TableNode') return x.table?.identifier?.name;
    if (x.kind === 'AliasNode') return named(x.node);
    return undefined;
  };
  if (InsertQueryNode.is(node)) return named(node.into);
  if (UpdateQueryNode.is(node)) return named(node.table);
  if (DeleteQueryNode.is(node)) return named(node.from.froms[0]);
  return undefined;
}

export interface OpenedPostgres {
  db: Kysely<Database>;
  /** The connection pool behind `db` (tests). */
  pool: Pg.Pool;
  /** Changes when this process may have written a credential or fee-rule row (credential-writes.ts), and every CREDENTIAL_CACHE_TTL_MS. */
  changeStamp(): string;
}

/**
 * Run on every new connection of the server's pool: a commit waits for its WAL record to be
 * flushed (`synchronous_commit` on) even where the database's or role's default is off, so
 * nothing is answered, evented or handed to the webhook dispatcher that a crash of the database
 * server or a power cut could take back. The set is conditional so a stronger setting an operator
 * chose for a standby (`remote_write`, `remote_apply`; `local` too, which also flushes locally) is
 * kept: only `off` is raised. A SET-like statement, not a startup option (PgBouncer refuses those).
 */
const SYNCED_COMMITS_SQL = "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off'";

export function openPostgres(connectionString: string, opts: { poolSize?: number | undefined; durability?: 'synced' | 'testOnlyUnsynced' } = {}): OpenedPostgres {
  let writes = 0;
  const watch: KyselyPlugin = {
    transformQuery({ node }) {
      if (RawNode.is(node)) {
        const text = node.sqlFragments.join('?');
        if (!/^\s*(select|show|begin|commit|rollback|savepoint|release|set)\b/i.test(text) && mayTouchCredentials(text)) writes++;
      } else if (InsertQueryNode.is(node) || UpdateQueryNode.is(node) || DeleteQueryNode.is(node)) {
        const table = targetTable(node);
        if (table === undefined || CREDENTIAL_TABLES.has(table)) writes++;
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const pool = paydeskPool(
    {
      connectionString,
      max: opts.poolSize ?? 10,
      application_name: 'paydesk',
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    // No parallel workers either (bench:volume at a million): starting one cost 20-30 ms, more than the
    // short queries of a request take in all (the amount list's attempts part planned one for a read of no rows).
    `SET jit = off; SET max_parallel_workers_per_gather = 0${opts.durability === 'testOnlyUnsynced' ? '' : `; ${SYNCED_COMMITS_SQL}`}`,
  );
  const db = new SerializableKysely<Database>({ dialect: new PaydeskPostgresDialect(pool), plugins: [watch] }, opts.poolSize ?? 10);
  registerDirectPostgres(db, pool);
  return {
    db,
    pool,
    changeStamp: () => `pg:${Math.floor(performance.now() / CREDENTIAL_CACHE_TTL_MS)}:${writes}`,
  };
}

/**
 * A pg pool with what every Paydesk connection shares (the server's pool above, the report
 * worker's reader in postgres-reader.ts): the type parsers, the timeouts, and failures that never
 * crash the process. `config` adds to or overrides the shared settings; `onConnect` runs first on
 * every new connection.
 */
export function paydeskPool(config: Pg.PoolConfig, onConnect: string): Pg.Pool {
  const pool = new (loadPg().Pool)({
    types: pgTypes,
    // docs/deployment.md "When the database fails over": a connect that hangs (a dead primary's
    // address dropping packets) fails after this and the request answers 503, not after the OS's
    // TCP timeout; keepalive notices a silently dead server on an idle connection.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    ...config,
  });
  // An idle client whose server went away (failover, restart) must not crash the process.
  pool.on('error', () => undefined);
  // A caller that finds every connection busy waits for one (round-trips.ts).
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    if (pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10)) roundTrips.poolWaits++;
    return connect(...args);
  }) as typeof pool.connect;
  // Nor one that is checked out, between two statements of a transaction, when its backend is
  // terminated: pg emits that on the client, which has no listener while checked out. The next
  // query on it fails (503 at the error handler) and the pool drops it when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    useNamedStatements(client);
    // No JIT compilation (measured with `npm run bench:volume -- --engine postgres`): at
    // a million sessions the planner's estimate of the invoice summary (correlated subqueries over
    // a 100,000-session invoice) passes jit_optimize_above_cost and PostgreSQL spent 3.9 s of
    // 4.7 s compiling it; without JIT the same query runs in 0.3-0.4 s. Short OLTP queries never
    // gain from it. A SET, not the `options` startup parameter, which PgBouncer refuses; pg runs
    // a client's queries in order, so this one goes before any query of the app.
    client.query(onConnect).catch(() => undefined);
  });
  return pool;
}
