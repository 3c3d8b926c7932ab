import type Pg from 'pg';

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
 * connection prepares it afresh; the failed call is run again at once outside a transaction,
 * and inside one it is a retryable failure (isPlanChanged) that re-runs the transaction.
 */
const names = new Map<string, string>();
let next = 0;

/** Marks `sql` as a hot text to run as a named statement. */
export function prepareByName(sql: string): void {
  if (!names.has(sql)) names.set(sql, `paydesk_${(next++).toString(36)}`);
}

/** PostgreSQL's refusal of a prepared statement whose result columns changed since it was planned. */
export function isPlanChanged(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

const TX_START = /^\s*(begin|start transaction)\b/i;
const TX_END = /^\s*(commit|rollback)\b/i;

/** Wraps a new pooled client's `query`: the texts marked by prepareByName run as named statements. */
export function useNamedStatements(client: Pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<Pg.QueryResult>;
  let inTransaction = false;
  client.query = ((...args: unknown[]) => {
    const [text, values, callback] = args;
    if (typeof text === 'string') {
      if (TX_START.test(text)) inTransaction = true;
      else if (TX_END.test(text)) inTransaction = false;
    }
    const name = typeof text === 'string' && callback === undefined && (values === undefined || Array.isArray(values)) ? names.get(text) : undefined;
    if (name === undefined) return query(...args);
    const run = (n: string) => query({ name: n, text, values });
    return run(name).catch((err: unknown) => {
      if (!isPlanChanged(err)) throw err;
      // Every connection prepares the text again under its new name.
      if (names.get(text as string) === name) names.set(text as string, `paydesk_${(next++).toString(36)}`);
      if (inTransaction) throw err;
      return run(names.get(text as string)!);
    });
  }) as typeof client.query;
}
