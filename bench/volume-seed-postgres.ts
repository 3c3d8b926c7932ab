import { dayTotalsRebuildSql } from '../server/domain/day-totals';
import { invoiceSummaryRebuildSql } from '../server/domain/invoice-summary';
import type pg from 'pg';
import { CURRENCY, DESCRIPTION, REQUEST_HEADERS, RESPONSE_EXCERPT, RESPONSE_HEADERS, SEEDED_TABLES, WEBHOOK_URL, isoSql, sessionShapeSql, type SeedContext } from './volume-shapes';

/**
 * Seeds a migrated PostgreSQL database with the rows bench/volume-seed.ts writes on SQLite (the
 * shapes are bench/volume-shapes.ts), computed by the server: one `INSERT … SELECT` per table over
 * a temporary table of the sessions' shapes (itself from generate_series), so nothing crosses
 * the wire row by row. While seeding, the secondary indexes are dropped (built again after, one
 * sorted pass each) and `session_replication_role = replica` skips the foreign-key triggers
 * (the references are right by construction). Then `VACUUM ANALYZE`, as a database a year old
 * has been vacuumed and analysed by autovacuum. Needs a superuser connection (the bench's own
 * server or throwaway cluster).
 */
export interface PgSeedInput extends SeedContext {
  client: pg.Client;
  endpointId: string;
  branchId: string;
}

const lit = (v: string) => `'${v.replace(/'/g, "''")}'`;
/** md5-derived id of `len` hex characters, distinct per `salt` and session number. */
const hex = (salt: string, len: number) => (len <= 32 ? `substr(md5('${salt}' || i), 1, ${len})` : `substr(md5('${salt}' || i) || md5('${salt}x' || i), 1, ${len})`);

export async function seedVolumePostgres(s: PgSeedInput): Promise<{ counts: Record<string, number>; phases: Record<string, number> }> {
  const c = s.client;
  const phases: Record<string, number> = {};
  const timed = async (phase: string, work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    phases[phase] = Math.round((performance.now() - t0) / 100) / 10;
    s.note(`${phase}: ${phases[phase]} s`);
  };
  const iso = (ms: string) => isoSql(ms);
  const cur = lit(CURRENCY);
  const m = lit(s.merchantId);
  const integ = lit(s.integrationId);
  const endpoint = lit(s.endpointId);
  const staff = lit(s.staffId);
  const sid = `'cs_test_' || ${hex('s', 24)}`;
  const evt = `'evt_' || ${hex('e', 24)}`;
  const eventType = `CASE status WHEN 'success' THEN 'checkout.session.completed' WHEN 'failed' THEN 'checkout.session.failed' ELSE 'checkout.session.expired' END`;
  const cash = `rail = 'cash' AND status = 'success'`;

  const indexes = (
    await c.query<{ name: string; def: string }>(
      `SELECT quote_ident(ci.relname) AS name, pg_get_indexdef(x.indexrelid) AS def FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class ci ON ci.oid = x.indexrelid
        WHERE t.relname = ANY($1) AND t.relnamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)`,
      [SEEDED_TABLES],
    )
  ).rows;
  await c.query("SET maintenance_work_mem = '512MB'");
  await c.query('SET session_replication_role = replica');
  for (const ix of indexes) await c.query(`DROP INDEX ${ix.name}`);
  const inserts: Array<[string, string]> = [
    ['sessions', `INSERT INTO checkout_sessions (id, merchant_id, integration_id, status, amount_minor, currency, invoice_ref, description, customer_name, customer_email, callback_url, metadata, paid_rail, expires_at, created_at, updated_at, finalized_at)
      SELECT id, ${m}, ${integ}, status, amount, ${cur}, invoice_ref, ${lit(DESCRIPTION)}, 'Payer ' || i, NULL, NULL, '{}', CASE WHEN status = 'success' THEN rail END, ${iso('expires_ms')}, ${iso('created_ms')}, ${iso('coalesce(final_ms, created_ms)')}, ${iso('final_ms')}
      FROM volume_shape ORDER BY i`],
    ['history', `INSERT INTO session_history (id, session_id, from_status, to_status, cause, at)
      SELECT ${hex('h', 22).replace("'h' || i", "'h' || k || '.' || i")}, id, CASE k WHEN 1 THEN 'none' ELSE 'open' END, CASE k WHEN 1 THEN 'open' ELSE status END,
        CASE WHEN k = 1 THEN 'created' WHEN status = 'expired' THEN 'expires_at passed while open' ELSE 'attempt ' || status END, ${iso('CASE k WHEN 1 THEN created_ms ELSE final_ms END')}
      FROM volume_shape CROSS JOIN (VALUES (1), (2)) AS kk(k) WHERE k = 1 OR final_ms IS NOT NULL ORDER BY i, k`],
    ['slips', `INSERT INTO cash_slips (id, token, reference, session_id, amount_minor, base_minor, fee_minor, currency, status, expires_at, created_at, updated_at, reference_key)
      SELECT ${hex('sl', 22)}, 'slp_' || ${hex('t', 32)}, 'PD-' || substr(key, 1, 4) || '-' || substr(key, 5) || '-' || i, id, amount + fee, amount, fee, ${cur}, 'used', ${iso('created_ms + 86400000')}, ${iso('created_ms + 10000')}, ${iso('final_ms')}, key || i
      FROM (SELECT *, upper(${hex('k', 8)}) AS key FROM volume_shape WHERE ${cash}) AS v ORDER BY i`],
    ['deposits', `INSERT INTO cash_deposits (id, slip_id, session_id, amount_minor, currency, branch_id, note, status, recorded_by, reviewed_by, review_reason, created_at, reviewed_at)
      SELECT ${hex('dp', 22)}, ${hex('sl', 22)}, id, amount + fee, ${cur}, ${lit(s.branchId)}, NULL, 'approved', ${staff}, ${staff}, NULL, ${iso('created_ms + 60000')}, ${iso('final_ms')}
      FROM volume_shape WHERE ${cash} ORDER BY i`],
    ['audit', `INSERT INTO audit_log (id, at, actor_id, actor_username, actor_role, action, target_type, target_id, merchant_id, before, after, ip)
      SELECT ${hex('a', 22).replace("'a' || i", "'a' || k || '.' || i")}, ${iso('final_ms')}, ${staff}, ${lit(s.staffUsername)}, 'supervisor', CASE k WHEN 1 THEN 'deposit.record' ELSE 'deposit.approve' END, 'deposit', ${hex('dp', 22)}, ${m}, NULL,
        '{"status":"approved","amount_minor":' || (amount + fee) || '}', '127.0.0.1'
      FROM volume_shape CROSS JOIN (VALUES (1), (2)) AS kk(k) WHERE ${cash} ORDER BY i, k`],
    ['attempts', `INSERT INTO payment_attempts (id, session_id, rail, provider, provider_reference, status, raw_status, decline_reason, base_minor, fee_minor, amount_charged_minor, currency, operator, phone, phone_last4, account_name, payment_reference, card_brand, card_last4, scenario, resend_count, code_sent_at, prompt_expires_at, created_at, updated_at, finalized_at)
      SELECT ${hex('at', 22)}, id, rail, 'sandbox_' || rail, upper(rail) || '-' || ${hex('r', 16)}, CASE WHEN status = 'success' THEN 'succeeded' ELSE 'declined' END, CASE WHEN status = 'success' THEN 'SUCCESSFUL' ELSE 'DECLINED' END,
        CASE WHEN status = 'success' THEN NULL ELSE 'insufficient_funds' END, amount, fee, amount + fee, ${cur}, CASE WHEN rail = 'momo' THEN 'mtn' END,
        CASE WHEN rail = 'momo' THEN '024' || lpad((i % 10000000)::text, 7, '0') END, CASE WHEN rail = 'momo' THEN lpad((i % 10000)::text, 4, '0') END, NULL,
        CASE WHEN rail = 'bank_transfer' THEN 'BT-' || ${hex('b', 12)} END, CASE WHEN rail = 'card' THEN 'visa' END, CASE WHEN rail = 'card' THEN '4242' END, 'normal', 0, NULL, NULL,
        ${iso('created_ms + 30000')}, ${iso('final_ms')}, ${iso('final_ms')}
      FROM volume_shape WHERE rail IS NOT NULL AND NOT (${cash}) ORDER BY i`],
    ['events', `INSERT INTO events (id, type, session_id, integration_id, payload, created_at)
      SELECT ${evt}, ${eventType}, id, ${integ},
        '{"id":"' || ${evt} || '","type":"' || ${eventType} || '","created_at":"' || ${iso('final_ms')} || '","data":{"id":"' || id || '","status":"' || status || '","amount_minor":' || amount
          || ',"currency":"' || ${cur} || '","invoice_ref":"' || invoice_ref || '","paid_rail":' || CASE WHEN status = 'success' THEN '"' || rail || '"' ELSE 'null' END || ',"metadata":{}}}',
        ${iso('final_ms')}
      FROM volume_shape WHERE final_ms IS NOT NULL ORDER BY i`],
    ['deliveries', `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, integration_id, session_id, event_type, status, attempt_count, schedule_step, next_attempt_at, last_attempt_at, last_status_code, delivered_at, created_at, updated_at)
      SELECT ${hex('d', 22)}, ${evt}, ${endpoint}, ${integ}, id, ${eventType}, 'succeeded', 1, 0, NULL, ${iso('final_ms + 200')}, 200, ${iso('final_ms + 200')}, ${iso('final_ms')}, ${iso('final_ms + 200')}
      FROM volume_shape WHERE final_ms IS NOT NULL ORDER BY i`],
    ['attemptLogs', `INSERT INTO webhook_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, kind, url, started_at, latency_ms, outcome, status_code, response_excerpt, request_headers, response_headers)
      SELECT ${hex('l', 22)}, ${hex('d', 22)}, ${evt}, ${endpoint}, 1, 'initial', ${lit(WEBHOOK_URL)}, ${iso('final_ms + 100')}, 85, 'succeeded', 200, ${lit(RESPONSE_EXCERPT)}, ${lit(REQUEST_HEADERS)}, ${lit(RESPONSE_HEADERS)}
      FROM volume_shape WHERE final_ms IS NOT NULL ORDER BY i`],
  ];
  const counts: Record<string, number> = {};
  try {
    await timed('shapes', () =>
      c.query(`CREATE TEMP TABLE volume_shape AS SELECT ${sid} AS id, sh.* FROM (${sessionShapeSql({ n: s.n, sharedInvoice: s.sharedInvoice, nowMs: s.now.getTime() })}) AS sh`),
    );
    for (const [name, text] of inserts) {
      await timed(`insert ${name}`, async () => {
        counts[name] = (await c.query(text)).rowCount ?? 0;
      });
    }
  } finally {
    await c.query('DROP TABLE IF EXISTS volume_shape');
    await c.query('SET session_replication_role = DEFAULT');
    await timed('indexes', async () => {
      for (const ix of indexes) await c.query(ix.def);
    });
  }
  // The invoice summaries (migration 0017) and the overview's day totals (0037) from the seeded
  // rows, as `invoices:rebuild` does, with no delta left to fold (0021).
  await timed('invoice summaries', async () => {
    await c.query('DELETE FROM invoice_summary_deltas');
    await c.query('DELETE FROM invoice_summaries');
    await c.query(invoiceSummaryRebuildSql('GREATEST'));
    await c.query('DELETE FROM finance_day_totals');
    await c.query(dayTotalsRebuildSql());
  });
  await timed('vacuum analyze', () => c.query('VACUUM ANALYZE'));
  return { counts, phases };
}
