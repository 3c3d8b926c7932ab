import { sql } from 'kysely';
import { dialectOf } from '../../db/dialect';
import { precompiled } from '../../db/precompiled';

/**
 * The invoice line ingest's statements, compiled once per engine (building them with
 * Kysely on every request, the 100-row insert above all, was a large part of its CPU).
 *
 * A request's lines travel as one JSON parameter (`[[id, code, name, amount_minor], …]`), which
 * the statement unpacks (SQLite `json_each`, PostgreSQL `jsonb_array_elements`): one SQL text
 * whatever the number of lines, so one prepared statement, and no variable limit to chunk for
 * (SQLite 32,766, PostgreSQL 65,535 parameters; a request holds at most LIMITS.linesPerRequest
 * lines). The values the lines share (merchant, mode, invoice, currency, time) are bound once.
 */

type Owner = { merchantId: string; mode: 'test' | 'live'; invoiceRef: string };

/** The invoice's lines as they stand (the frozen remitted ones, the currency check). */
export const existingLines = precompiled((db, p: Owner) =>
  db
    .selectFrom('invoice_lines')
    .select(['code', 'name', 'amount_minor', 'currency', 'remitted'])
    .where('merchant_id', '=', p.merchantId)
    .where('mode', '=', p.mode)
    .where('invoice_ref', '=', p.invoiceRef),
);

/** The merchant's active revenue lines (the codes a line may name, and their default names). */
export const activeRevenueLines = precompiled((db, p: { merchantId: string; mode: 'test' | 'live' }) =>
  db.selectFrom('revenue_lines').select(['code', 'name']).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).where('active', '=', 1),
);

/**
 * Inserts the lines (`rows`: JSON `[[id, code, name, amount_minor], …]`, codes unique); a code
 * the invoice already has (never a remitted one: the caller answered those) gets the new name,
 * amount and currency and keeps its id and created_at. `WHERE true` resolves SQLite's
 * INSERT … SELECT … ON CONFLICT parsing ambiguity.
 */
export const upsertLines = precompiled((db, p: Owner & { currency: string; now: string; rows: string }) => {
  const head = sql`INSERT INTO invoice_lines (id, merchant_id, mode, invoice_ref, code, name, amount_minor, currency, remitted, remitted_at, created_at, updated_at)`;
  const tail = sql`ON CONFLICT (merchant_id, mode, invoice_ref, code) DO UPDATE SET
      name = excluded.name, amount_minor = excluded.amount_minor, currency = excluded.currency, updated_at = excluded.updated_at`;
  const shared = sql`${p.merchantId}, ${p.mode}, ${p.invoiceRef}`;
  const e = dialectOf(db).jsonRows(p.rows);
  return {
    compile: () =>
      sql`${head} SELECT ${e.at(0)}, ${shared}, ${e.at(1)}, ${e.at(2)}, ${e.integerAt(3)}, ${p.currency}, 0, NULL, ${p.now}, ${p.now}
            FROM ${e.from} ${e.where} ${tail}`.compile(db),
  };
});
