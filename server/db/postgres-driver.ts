import type Pg from 'pg';
import { CompiledQuery, PostgresDialect, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import { isDeadConnectionError } from './connection-errors';
import { READ_ONLY } from './direct-postgres';

/**
 * Kysely's PostgreSQL dialect on Paydesk's pool, with a driver of its own for one rule Kysely's
 * does not keep: a pooled connection found dead (its backend terminated while it sat idle: a
 * failover, a restart, `pg_terminate_backend`) goes back to the pool with the error, so the pool
 * drops it at once, and a read that was the first statement on it runs again on the next pooled
 * connection instead of answering 503. The same rule as the direct path's (onPooledClient,
 * direct-postgres.ts) and a transaction's BEGIN (postgres.ts). Only the first statement of a
 * checkout runs again: after one, the connection may hold state a later statement relies on (a
 * session advisory lock, server/db/leader.ts; a transaction), which a new connection would not.
 */
export class PaydeskPostgresDialect extends PostgresDialect {
  readonly #pool: Pg.Pool;

  constructor(pool: Pg.Pool) {
    super({ pool });
    this.#pool = pool;
  }

  override createDriver(): Driver {
    return new PaydeskPostgresDriver(this.#pool);
  }
}

class PaydeskPostgresDriver implements Driver {
  constructor(private readonly pool: Pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PooledConnection(this.pool, await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'start transaction';
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) text += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(settings.isolationLevel || settings.accessMode ? text : 'begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PooledConnection).release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

const AFFECTS_ROWS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PooledConnection implements DatabaseConnection {
  /** Statements sent on this checkout. */
  #sent = 0;
  /** The error that showed this client's connection dead: it is released with it. */
  #dead: Error | undefined;
  #released = false;

  constructor(
    private readonly pool: Pg.Pool,
    private client: Pg.PoolClient,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const repeatable = this.#sent++ === 0 && READ_ONLY.test(compiled.sql);
    for (let dead = 0; ; dead++) {
      try {
        const r = await this.client.query(compiled.sql, [...compiled.parameters]);
        return { rows: (r.rows ?? []) as R[], numAffectedRows: AFFECTS_ROWS.has(r.command) ? BigInt(r.rowCount ?? 0) : undefined };
      } catch (err) {
        if (!isDeadConnectionError(err)) throw err;
        this.#dead = err as Error;
        if (!repeatable || dead >= (this.pool.options.max ?? 10)) throw err;
        // The dead client goes back first: with every client of the pool checked out, the next
        // one can only be had once this one has left.
        this.release();
        this.client = await this.pool.connect();
        this.#dead = undefined;
        this.#released = false;
      }
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamed queries are not used on PostgreSQL');
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.client.release(this.#dead);
  }
}
