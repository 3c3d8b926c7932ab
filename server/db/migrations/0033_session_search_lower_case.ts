import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. The broad search's day walk (0028, 0029) reads a day that is mostly matches on
// the merchant's (merchant_id, created_at, id) index and checks the text on every session of it:
// a heap fetch and an ILIKE (which lower-cases both sides on every call) per session, 1.5 µs of the
// 4.2 ms a day of 2,740 sessions cost at a million. The payer name and the invoice ref are now
// also stored lower-cased (generated columns: PostgreSQL computes them on every insert and
// update), and that index carries them (INCLUDE), so such a day is read from the index alone and
// checked with LIKE against the lower-cased text: 1.1 ms for the same day, and the whole walk
// 20-25 % faster (41 -> 31 ms and 26 -> 21 ms on the kept bench database, alternated). `lower(x)
// LIKE lower(p)` is what ILIKE does on a UTF-8 database, so the walk finds the same sessions.
// Only the index reads change: the trigram probes still read the heap, where the text columns come
// first (reading the lower-cased columns there, at the end of the row, was slower: 34 vs 25 ms).
// Upgrade cost: adding stored columns rewrites the table, rebuilding its indexes (15.7 s at 1.15
// million sessions, measured here), and this index is built again (1.4 s), under a lock that holds
// readers and writers of sessions for that time (docs/deployment.md).
// The index keeps its name. SQLite: nothing (its search is FTS5).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`ALTER TABLE checkout_sessions
    ADD COLUMN customer_name_lower text GENERATED ALWAYS AS (lower(customer_name)) STORED,
    ADD COLUMN invoice_ref_lower text GENERATED ALWAYS AS (lower(invoice_ref)) STORED`.execute(db);
  await sql`DROP INDEX checkout_sessions_merchant_created_id`.execute(db);
  await sql`CREATE INDEX checkout_sessions_merchant_created_id ON checkout_sessions (merchant_id, created_at, id) INCLUDE (customer_name_lower, invoice_ref_lower)`.execute(db);
  await sql.raw(`CREATE OR REPLACE FUNCTION paydesk_search_window(m text, w text, p text, only_ref boolean, first_day text, last_day text, months text[], cap int, dense_from int,
  OUT n int, OUT newest text, OUT at text, OUT at_id text)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  lp text := lower(p);
  mo text; d int; day text; c int; top text; hit boolean; dense boolean := false; all_day int; c_prev int := 0; k int;
BEGIN
  n := 0;
  FOREACH mo IN ARRAY months LOOP
    IF only_ref THEN
      hit := EXISTS (SELECT 1 FROM checkout_sessions h WHERE substr(h.created_at, 1, 7) = mo AND h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p) AND (h.merchant_id || '') = m);
    ELSE
      hit := EXISTS (SELECT 1 FROM checkout_sessions h WHERE substr(h.created_at, 1, 7) = mo
        AND ((h.customer_name ILIKE w AND (w = p OR (h.customer_name || '') ILIKE p)) OR (h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p))) AND (h.merchant_id || '') = m);
    END IF;
    CONTINUE WHEN NOT hit;
    FOR d IN REVERSE 31..1 LOOP
      day := mo || '-' || lpad(d::text, 2, '0');
      CONTINUE WHEN day > last_day OR day < first_day OR day > to_char((mo || '-01')::date + interval '1 month' - interval '1 day', 'YYYY-MM-DD');
      IF dense AND n + c_prev >= cap AND n < cap THEN
        -- Likely the day of the cap-th (dense, and the day before had enough): read backward to it and one past it on the merchant's index.
        -- Dense implies an earlier day with matches, so newest is set.
        SELECT count(*), min(x.id) FILTER (WHERE x.r = 1), max(x.created_at) FILTER (WHERE x.r = 1) INTO k, at_id, at FROM (
          SELECT h.created_at, h.id, row_number() OVER () AS r FROM (SELECT h.created_at, h.id FROM checkout_sessions h
            WHERE h.merchant_id = m AND h.created_at >= day AND h.created_at < day || 'U'
              AND (CASE WHEN only_ref THEN h.invoice_ref_lower LIKE lp ELSE (h.customer_name_lower LIKE lp OR h.invoice_ref_lower LIKE lp) END)
            ORDER BY h.created_at DESC, h.id DESC OFFSET cap - n - 1 LIMIT 2) AS h) AS x;
        IF k > 0 THEN
          n := cap + k - 1;
          IF n > cap THEN RETURN; END IF;
          c_prev := 0;
          CONTINUE;
        END IF;
        at := NULL; at_id := NULL;
      END IF;
      IF dense THEN
        -- The day before was mostly matches: every session of this day, read on the merchant's index, checked against the text.
        SELECT count(*) FILTER (WHERE x.hit), max(x.created_at) FILTER (WHERE x.hit), count(*) INTO c, top, all_day FROM (
          SELECT h.created_at, CASE WHEN only_ref THEN h.invoice_ref_lower LIKE lp ELSE (h.customer_name_lower LIKE lp OR h.invoice_ref_lower LIKE lp) END AS hit
          FROM checkout_sessions h WHERE h.merchant_id = m AND h.created_at >= day AND h.created_at < day || 'U') AS x;
      ELSE
        IF only_ref THEN
          SELECT count(*), max(h.created_at) INTO c, top FROM checkout_sessions h WHERE substr(h.created_at, 1, 10) = day AND h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p) AND (h.merchant_id || '') = m;
        ELSE
          SELECT count(*), max(h.created_at) INTO c, top FROM checkout_sessions h WHERE substr(h.created_at, 1, 10) = day
            AND ((h.customer_name ILIKE w AND (w = p OR (h.customer_name || '') ILIKE p)) OR (h.invoice_ref ILIKE w AND (w = p OR (h.invoice_ref || '') ILIKE p))) AND (h.merchant_id || '') = m;
        END IF;
        all_day := NULL;
        IF c >= dense_from THEN
          SELECT count(*) INTO all_day FROM checkout_sessions h WHERE h.merchant_id = m AND h.created_at >= day AND h.created_at < day || 'U';
        END IF;
      END IF;
      dense := all_day IS NOT NULL AND c * 2 >= all_day;
      CONTINUE WHEN c = 0;
      c_prev := c;
      IF n >= cap THEN n := n + c; RETURN; END IF;
      IF newest IS NULL THEN newest := top; END IF;
      IF n + c >= cap THEN
        -- The cap-th newest is this day's (cap - n)-th newest: read backward on the merchant's (merchant_id, created_at, id) index.
        SELECT h.created_at, h.id INTO at, at_id FROM checkout_sessions h WHERE h.merchant_id = m AND h.created_at >= day AND h.created_at < day || 'U'
          AND (CASE WHEN only_ref THEN h.invoice_ref_lower LIKE lp ELSE (h.customer_name_lower LIKE lp OR h.invoice_ref_lower LIKE lp) END)
          ORDER BY h.created_at DESC, h.id DESC OFFSET cap - n - 1 LIMIT 1;
      END IF;
      n := n + c;
      IF n > cap THEN RETURN; END IF;
    END LOOP;
  END LOOP;
END
$fn$;`).execute(db);
}
