import { createHash } from 'node:crypto';
import type Pg from 'pg';
import { roundTrips } from './round-trips';

/**
 * Named (server-side prepared) statements on PostgreSQL for the hot, fixed SQL texts of
 * `precompiled` (server/db/precompiled.ts). Each connection parses and plans such a text once and
 * then only binds and executes it, instead of a Parse of the whole text per call: what a
 * one-statement session create (five CTEs) and a session lookup cost PostgreSQL per request, on
 * the same cores as the server (docs/performance.md). Other queries (the back office's built
 * ones, ad-hoc reads) stay unnamed, so the set of prepared statements per connection is bounded.
 *
 * A prepared statement is planned against the schema it saw; when a migration run by another
 * instance changes a table's columns under it (a rolling upgrade), PostgreSQL refuses it with
 * "cached plan must not change result type" (0A000). The text then gets a new name, so every
 * connection prepares it afresh. Behind a pooler that moves a client between server connections
 * (PgBouncer in transaction mode without `max_prepared_statements`), a statement this client
 * prepared may be missing on the server connection it now has (26000), or one of another client's
 * may already hold its name (42P05): that client then sends every text unnamed. Either way the
 * failed call is run again at once outside a transaction, and inside one it is a retryable failure
 * (isPreparedStatementMiss) that re-runs the transaction.
 */
const names = new Map<string, string>();
let renamed = 0;

/**
 * A text's name is drawn from the text itself, so a name means the same statement in every
 * process and version: behind a pooler, a statement of that name that another client prepared on
 * the same server connection is this very text, never another one bound with these values.
 */
const nameOf = (sql: string, generation?: number) => `paydesk_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}${generation === undefined ? '' : `_${generation}`}`;

/** Marks `sql` as a hot text to run as a named statement. */
export function prepareByName(sql: string): void {
  if (!names.has(sql)) names.set(sql, nameOf(sql));
}

/** The hot texts marked so far in this process: what the pool's connections prepare (test/integration/query-plans-prepared.test.ts explains each). */
export const namedTexts = (): string[] => [...names.keys()];

const planChanged = (e: { code?: unknown; message?: unknown }) =>
  e.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
/** A prepared statement missing on, or already named on, the server connection (a pooler between). */
const notOnThisConnection = (e: { code?: unknown }) => e.code === '26000' || e.code === '42P05';

/** A named statement that failed for being prepared, not for what it does: worth running again (see above). */
export function isPreparedStatementMiss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object' && (planChanged(e) || notOnThisConnection(e));
}

const TX_START = /^\s*(begin|start transaction)\b/i;
const TX_END = /^\s*(commit|rollback)\b/i;

/** Wraps a new pooled client's `query`: the texts marked by prepareByName run as named statements; every statement is counted (round-trips.ts). */
export function useNamedStatements(client: Pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<Pg.QueryResult>;
  let inTransaction = false;
  // Off for good on this client once a pooler showed it may not keep prepared statements.
  let named = true;
  client.query = ((...args: unknown[]) => {
    roundTrips.statements++;
    const [text, values, callback] = args;
    if (typeof text === 'string') {
      if (TX_START.test(text)) inTransaction = true;
      else if (TX_END.test(text)) inTransaction = false;
    }
    const name = named && typeof text === 'string' && callback === undefined && (values === undefined || Array.isArray(values)) ? names.get(text) : undefined;
    if (name === undefined) return query(...args);
    return query({ name, text, values }).catch((err: unknown) => {
      if (!isPreparedStatementMiss(err)) throw err;
      const e = err as { code?: unknown; message?: unknown };
      if (planChanged(e)) {
        // Every connection prepares the text again under its new name.
        if (names.get(text as string) === name) names.set(text as string, nameOf(text as string, ++renamed));
      } else {
        named = false;
      }
      if (inTransaction) throw err;
      const again = names.get(text as string);
      return named && again !== undefined ? query({ name: again, text, values }) : query(text, values);
    });
  }) as typeof client.query;
}
