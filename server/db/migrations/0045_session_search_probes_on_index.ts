import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. The broad search's day walk (0026, 0028) asks, for each month, whether it holds a match
// at all (`EXISTS`, one probe of the trigram index); a month without one is skipped with its days.
// The planner takes the month and the text for independent, so for "Payer 1" (1 name in 9, all of
// them in three months of the year) it expects some 9,500 matches in every month and prices a
// sequential scan that stops at the first one as cheaper than the index probe: in a month without
// a match that scan reads the whole table (1.0 s at a million sessions, nine such months: the
// broad search took 8-10 s). It did not as long as the merchant condition (`merchant_id || ''`)
// had no statistics (a default 0.5 % share shrank the estimate); 0035 put that expression into
// the trigram indexes, and ANALYZE now knows it (one merchant: every session). The probes are
// meant to read the index and nothing else, whatever the estimate, so they are planned with
// sequential scans off:
// - paydesk_search_window (the capped walk's function) runs with `enable_seqscan = off`: 8-10 s
//   -> 30-40 ms for "Payer 1" on the kept bench database (a loaded machine);
// - paydesk_search_month_has is the same month probe for the walk that returns its rows
//   (server/db/search/postgres.ts newestByDay), which planned the same scan.
// A plan with no index to use still runs (the setting only prices a scan up). SQLite: nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`ALTER FUNCTION paydesk_search_window(text, text, text, boolean, text, text, text[], int, int) SET enable_seqscan = off`.execute(db);
  await sql.raw(`CREATE FUNCTION paydesk_search_month_has(m text, w text, p text, only_ref boolean, mo text) RETURNS boolean
LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $fn$
BEGIN
  IF only_ref THEN
    RETURN EXISTS (SELECT 1 FROM checkout_sessions h WHERE substr(h.created_at, 1, 7) = mo AND h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p) AND (h.merchant_id || '') = m);
  END IF;
  RETURN EXISTS (SELECT 1 FROM checkout_sessions h WHERE substr(h.created_at, 1, 7) = mo
    AND ((h.customer_name ILIKE w AND (w = p OR (h.customer_name || '') ILIKE p)) OR (h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p))) AND (h.merchant_id || '') = m);
END
$fn$;`).execute(db);
}
