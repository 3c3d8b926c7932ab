import type SQLite from 'better-sqlite3';
import { randomBase62 } from '../server/lib/ids';
import { dayTotalsRebuildSql } from '../server/domain/day-totals';
import { invoiceSummaryRebuildSql } from '../server/domain/invoice-summary';
import { rebuildSearchIndex } from '../server/db/search';
import { CURRENCY, DESCRIPTION, REQUEST_HEADERS, RESPONSE_EXCERPT, RESPONSE_HEADERS, SEEDED_TABLES, WEBHOOK_URL, sessionShape, type SeedContext } from './volume-shapes';

/**
 * Seeds a migrated SQLite database with `n` sessions of one merchant and the rows a year of
 * traffic leaves with them (what each session gets: bench/volume-shapes.ts, shared with
 * the PostgreSQL seed), through better-sqlite3 directly: multi-row INSERTs of 100 rows, 20,000
 * sessions per transaction, secondary indexes built once at the end. The invoice summaries
 * (migration 0017) are then filled from the seeded rows, as `invoices:rebuild` does, and the
 * session search's FTS5 index (0016, 0020: written by the server's background job, not by a
 * trigger) is rebuilt and merged, its mark set to the last session, as an operator would.
 */
export interface SeedInput extends Omit<SeedContext, 'note'> {
  sqlite: SQLite.Database;
  endpointId: string;
  branchId: string;
}

const ROWS_PER_INSERT = 100;
const SESSIONS_PER_TRANSACTION = 20_000;

function bulk(sqlite: SQLite.Database, table: string, cols: string[]) {
  const one = `(${cols.map(() => '?').join(',')})`;
  const sqlFor = (rows: number) => `INSERT INTO ${table} (${cols.join(',')}) VALUES ${Array(rows).fill(one).join(',')}`;
  const full = sqlite.prepare(sqlFor(ROWS_PER_INSERT));
  let buf: unknown[] = [];
  let rows = 0;
  let total = 0;
  return {
    add(...values: unknown[]) {
      buf.push(...values);
      total++;
      if (++rows === ROWS_PER_INSERT) {
        full.run(buf);
        buf = [];
        rows = 0;
      }
    },
    flush() {
      if (rows > 0) sqlite.prepare(sqlFor(rows)).run(buf);
      buf = [];
      rows = 0;
    },
    get total() {
      return total;
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const SLIP_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTUVWXYZ';
const slipKey = () => Array.from({ length: 8 }, () => SLIP_ALPHABET[Math.floor(Math.random() * SLIP_ALPHABET.length)]).join('');

export function seedVolume(s: SeedInput): Record<string, number> {
  const t = {
    sessions: bulk(s.sqlite, 'checkout_sessions', ['id', 'merchant_id', 'integration_id', 'status', 'amount_minor', 'currency', 'invoice_ref', 'description', 'customer_name', 'customer_email', 'callback_url', 'metadata', 'paid_rail', 'expires_at', 'created_at', 'updated_at', 'finalized_at']),
    history: bulk(s.sqlite, 'session_history', ['id', 'session_id', 'from_status', 'to_status', 'cause', 'at']),
    attempts: bulk(s.sqlite, 'payment_attempts', ['id', 'session_id', 'rail', 'provider', 'provider_reference', 'status', 'raw_status', 'decline_reason', 'base_minor', 'fee_minor', 'amount_charged_minor', 'currency', 'operator', 'phone', 'phone_last4', 'account_name', 'payment_reference', 'card_brand', 'card_last4', 'scenario', 'resend_count', 'code_sent_at', 'prompt_expires_at', 'created_at', 'updated_at', 'finalized_at']),
    slips: bulk(s.sqlite, 'cash_slips', ['id', 'token', 'reference', 'session_id', 'amount_minor', 'base_minor', 'fee_minor', 'currency', 'status', 'expires_at', 'created_at', 'updated_at', 'reference_key']),
    deposits: bulk(s.sqlite, 'cash_deposits', ['id', 'slip_id', 'session_id', 'amount_minor', 'currency', 'branch_id', 'note', 'status', 'recorded_by', 'reviewed_by', 'review_reason', 'created_at', 'reviewed_at']),
    events: bulk(s.sqlite, 'events', ['id', 'type', 'session_id', 'integration_id', 'payload', 'created_at']),
    deliveries: bulk(s.sqlite, 'webhook_deliveries', ['id', 'event_id', 'endpoint_id', 'integration_id', 'session_id', 'event_type', 'status', 'attempt_count', 'schedule_step', 'next_attempt_at', 'last_attempt_at', 'last_status_code', 'delivered_at', 'created_at', 'updated_at']),
    attemptLogs: bulk(s.sqlite, 'webhook_delivery_attempts', ['id', 'delivery_id', 'event_id', 'endpoint_id', 'attempt_number', 'kind', 'url', 'started_at', 'latency_ms', 'outcome', 'status_code', 'response_excerpt', 'request_headers', 'response_headers']),
    audit: bulk(s.sqlite, 'audit_log', ['id', 'at', 'actor_id', 'actor_username', 'actor_role', 'action', 'target_type', 'target_id', 'merchant_id', 'before', 'after', 'ip']),
  };
  const params = { n: s.n, sharedInvoice: s.sharedInvoice, nowMs: s.now.getTime() };
  const seedRange = s.sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const { status, rail, amount, fee, createdMs: created, finalMs: finalAt, expiresMs: expires, invoiceRef } = sessionShape(i, params);
      const id = `cs_test_${randomBase62(24)}`;
      t.sessions.add(id, s.merchantId, s.integrationId, status, amount, CURRENCY, invoiceRef, DESCRIPTION, `Payer ${i}`, null, null, '{}', status === 'success' ? rail : null, iso(expires), iso(created), iso(finalAt ?? created), finalAt === null ? null : iso(finalAt));
      t.history.add(randomBase62(22), id, 'none', 'open', 'created', iso(created));
      if (finalAt === null) continue;
      t.history.add(randomBase62(22), id, 'open', status, status === 'expired' ? 'expires_at passed while open' : `attempt ${status}`, iso(finalAt));
      if (rail === 'cash' && status === 'success') {
        const slipId = randomBase62(22);
        const key = slipKey();
        t.slips.add(slipId, `slp_${randomBase62(32)}`, `PD-${key.slice(0, 4)}-${key.slice(4)}-${i}`, id, amount + fee, amount, fee, CURRENCY, 'used', iso(created + 86_400_000), iso(created + 10_000), iso(finalAt), `${key}${i}`);
        const depId = randomBase62(22);
        t.deposits.add(depId, slipId, id, amount + fee, CURRENCY, s.branchId, null, 'approved', s.staffId, s.staffId, null, iso(created + 60_000), iso(finalAt));
        for (const action of ['deposit.record', 'deposit.approve']) {
          t.audit.add(randomBase62(22), iso(finalAt), s.staffId, s.staffUsername, 'supervisor', action, 'deposit', depId, s.merchantId, null, JSON.stringify({ status: 'approved', amount_minor: amount + fee }), '127.0.0.1');
        }
      } else if (rail) {
        const ok = status === 'success';
        const ref = `${rail.toUpperCase()}-${randomBase62(16)}`;
        t.attempts.add(randomBase62(22), id, rail, `sandbox_${rail}`, ref, ok ? 'succeeded' : 'declined', ok ? 'SUCCESSFUL' : 'DECLINED', ok ? null : 'insufficient_funds', amount, fee, amount + fee, CURRENCY, rail === 'momo' ? 'mtn' : null, rail === 'momo' ? `024${String(i % 10_000_000).padStart(7, '0')}` : null, rail === 'momo' ? String(i % 10_000).padStart(4, '0') : null, null, rail === 'bank_transfer' ? `BT-${randomBase62(12)}` : null, rail === 'card' ? 'visa' : null, rail === 'card' ? '4242' : null, 'normal', 0, null, null, iso(created + 30_000), iso(finalAt), iso(finalAt));
      }
      const type = status === 'success' ? 'checkout.session.completed' : status === 'failed' ? 'checkout.session.failed' : 'checkout.session.expired';
      const evt = `evt_${randomBase62(24)}`;
      const payload = JSON.stringify({ id: evt, type, created_at: iso(finalAt), data: { id, status, amount_minor: amount, currency: CURRENCY, invoice_ref: invoiceRef, paid_rail: status === 'success' ? rail : null, metadata: {} } });
      t.events.add(evt, type, id, s.integrationId, payload, iso(finalAt));
      const del = randomBase62(22);
      t.deliveries.add(del, evt, s.endpointId, s.integrationId, id, type, 'succeeded', 1, 0, null, iso(finalAt + 200), 200, iso(finalAt + 200), iso(finalAt), iso(finalAt + 200));
      t.attemptLogs.add(randomBase62(22), del, evt, s.endpointId, 1, 'initial', WEBHOOK_URL, iso(finalAt + 100), 85, 'succeeded', 200, RESPONSE_EXCERPT, REQUEST_HEADERS, RESPONSE_HEADERS);
    }
    for (const b of Object.values(t)) b.flush();
  });
  // Rows are buffered per table, so a child row may be written before its parent's batch: the
  // references are right by construction, and checked off while seeding only.
  // Secondary indexes are dropped while seeding and built again after (one sorted pass each,
  // instead of a random B-tree insert per row): the schema ends exactly as the migrations made it.
  const tables = SEEDED_TABLES;
  const indexes = s.sqlite
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${tables.map(() => '?').join(',')})`)
    .all(...tables) as Array<{ name: string; sql: string }>;
  s.sqlite.pragma('foreign_keys = OFF');
  try {
    for (const ix of indexes) s.sqlite.exec(`DROP INDEX "${ix.name}"`);
    for (let from = 0; from < s.n; from += SESSIONS_PER_TRANSACTION) seedRange(from, Math.min(s.n, from + SESSIONS_PER_TRANSACTION));
  } finally {
    for (const ix of indexes) s.sqlite.exec(ix.sql);
    s.sqlite.pragma('foreign_keys = ON');
  }
  // The invoice summaries the app keeps in its own transactions (migration 0017), filled from
  // the seeded rows by the statement `invoices:rebuild` runs; no delta is left to fold (0021:
  // the seed writes no deltas, and the rebuild covers any written before it), and the overview's
  // day totals (0037) the same way.
  s.sqlite.exec('DELETE FROM invoice_summary_deltas');
  s.sqlite.exec('DELETE FROM invoice_summaries');
  s.sqlite.exec(invoiceSummaryRebuildSql('MAX'));
  s.sqlite.exec('DELETE FROM finance_day_totals');
  s.sqlite.exec(dayTotalsRebuildSql());
  rebuildSearchIndex(s.sqlite);
  return Object.fromEntries(Object.entries(t).map(([k, b]) => [k, b.total]));
}
