import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. A broad search text on PostgreSQL ("Payer 1", 111,111 of a million names) is
// read day by day, newest first, from 0026's day-keyed trigram indexes and stops at the candidate
// cap; the capped walk answers a window (server/db/search/). The walk was one SQL statement that
// sorted every matching day and numbered its 10,001 rows to find the cap-th. This function walks
// the same months and days but only counts each day's matches (no sort, no rows out), and reads
// the one day that holds the cap-th session backward on the merchant's (merchant_id, created_at,
// id) index, stopping at it. Each day is counted from the trigram index, or, when the day before
// was mostly matches (at least `dense_from` of them, and half its sessions or more), from the
// merchant's index over the day with the text checked on each row: a day full of matches costs
// the GIN intersection of the day's list with every trigram's list, or half as much by reading
// the day in place (3.3 vs 6 ms for 2,740 sessions, measured at a million). It returns the count found (at most one day past the cap), the
// newest match's created_at, and the cap-th (created_at, id), newest first by created_at, then id,
// as every list. Arguments: merchant, the pattern the trigram index is asked (`w`, a rare word's or
// the text's), the text's pattern (`p`), invoice_ref only, the merchant's first and last day, the
// months newest first, the cap. SQLite: nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw(`CREATE FUNCTION paydesk_search_window(m text, w text, p text, only_ref boolean, first_day text, last_day text, months text[], cap int, dense_from int,
  OUT n int, OUT newest text, OUT at text, OUT at_id text)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
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
              AND (CASE WHEN only_ref THEN h.invoice_ref ILIKE p ELSE (h.customer_name ILIKE p OR h.invoice_ref ILIKE p) END)
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
          SELECT h.created_at, CASE WHEN only_ref THEN h.invoice_ref ILIKE p ELSE (h.customer_name ILIKE p OR h.invoice_ref ILIKE p) END AS hit
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
          AND (CASE WHEN only_ref THEN h.invoice_ref ILIKE p ELSE (h.customer_name ILIKE p OR h.invoice_ref ILIKE p) END)
          ORDER BY h.created_at DESC, h.id DESC OFFSET cap - n - 1 LIMIT 1;
      END IF;
      n := n + c;
      IF n > cap THEN RETURN; END IF;
    END LOOP;
  END LOOP;
END
$fn$;`).execute(db);
}
