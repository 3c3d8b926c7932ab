/**
 * What `npm run bench:volume` seeds for session number `i` of `n`, said once for both
 * engines: the JavaScript of each derived value (bench/volume-seed.ts, SQLite) sits next to its
 * SQL (bench/volume-seed-postgres.ts, PostgreSQL, computed server-side over generate_series), so
 * the two seeds make the same rows. Mix per 20 sessions: 14 paid, 3 expired, 1 failed, 2
 * expired-or-open (open only in the last 1%, as a live system has); paid by Mobile Money (4 in
 * 10), card (2), bank transfer (2) or cash at a branch (2: slip, approved deposit, two audit rows).
 * Each final session has its history (2 rows), one event, one delivered webhook delivery and its
 * attempt log. The first `sharedInvoice` sessions share the invoice ref `DONATION`. Sessions are
 * spread evenly over the year before `now`. Identifiers are random on SQLite and md5-derived
 * (hex, a subset of base62) on PostgreSQL; their lengths and prefixes are the same.
 */
export const YEAR_MS = 365 * 86_400_000;
export const SHARED_INVOICE_REF = 'DONATION';
export const DESCRIPTION = 'Water bill';
export const CURRENCY = 'GHS';
export const WEBHOOK_URL = 'https://hooks.example.com/paydesk';
export const RESPONSE_EXCERPT = '{"received":true}';
export const RESPONSE_HEADERS = '{"content-type":"application/json"}';
export const REQUEST_HEADERS = JSON.stringify({ 'content-type': 'application/json', 'user-agent': 'Paydesk-Webhooks/1', 'webhook-id': 'evt_x', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${'x'.repeat(44)}` });
/** Tables the seed writes (their secondary indexes are dropped while seeding and built again after). */
/** What both engines' seeds take (bench/volume-seed.ts, bench/volume-seed-postgres.ts): whose rows, how many, and when. */
export interface SeedContext {
  n: number;
  merchantId: string;
  integrationId: string;
  staffId: string;
  staffUsername: string;
  sharedInvoice: number;
  /** Sessions are spread over the year before this instant. */
  now: Date;
  note(msg: string): void;
}

export const SEEDED_TABLES = ['checkout_sessions', 'session_history', 'payment_attempts', 'cash_slips', 'cash_deposits', 'events', 'webhook_deliveries', 'webhook_delivery_attempts', 'audit_log'];

export type Rail = 'momo' | 'card' | 'bank_transfer' | 'cash';
export interface SessionShape {
  status: 'success' | 'expired' | 'failed' | 'open';
  /** The rail of the paid or failed attempt; null for expired and open sessions. */
  rail: Rail | null;
  amount: number;
  fee: number;
  createdMs: number;
  /** null while open. */
  finalMs: number | null;
  expiresMs: number;
  invoiceRef: string;
}

export interface ShapeParams {
  n: number;
  sharedInvoice: number;
  nowMs: number;
}

export function sessionShape(i: number, p: ShapeParams): SessionShape {
  const step = YEAR_MS / p.n;
  const createdMs = Math.floor(p.nowMs - YEAR_MS + i * step);
  const kind = i % 20;
  const status = kind < 14 ? 'success' : kind < 17 ? 'expired' : kind === 17 ? 'failed' : i >= Math.floor(p.n * 0.99) ? 'open' : 'expired';
  const railN = i % 10;
  const rail = status === 'success' || status === 'failed' ? (railN < 4 ? 'momo' : railN < 6 ? 'card' : railN < 8 ? 'bank_transfer' : 'cash') : null;
  const amount = 1_000 + (i % 500) * 100;
  return {
    status,
    rail,
    amount,
    fee: Math.floor((amount * 15 + 500) / 1000), // 1.5 %, rounded half up, in integers on both engines
    createdMs,
    finalMs: status === 'open' ? null : createdMs + 90_000,
    expiresMs: createdMs + (status === 'open' ? YEAR_MS : 3_600_000),
    invoiceRef: i < p.sharedInvoice ? SHARED_INVOICE_REF : `INV-${i}`,
  };
}

/**
 * The same as sessionShape, as a PostgreSQL SELECT over generate_series with the columns
 * i, status, rail, amount, fee, created_ms, final_ms, expires_ms, invoice_ref.
 */
export function sessionShapeSql(p: ShapeParams): string {
  const step = YEAR_MS / p.n;
  const openFrom = Math.floor(p.n * 0.99);
  return `SELECT i, status, CASE WHEN status IN ('success', 'failed') THEN CASE WHEN i % 10 < 4 THEN 'momo' WHEN i % 10 < 6 THEN 'card' WHEN i % 10 < 8 THEN 'bank_transfer' ELSE 'cash' END END AS rail,
      amount, (amount * 15 + 500) / 1000 AS fee, created_ms,
      CASE WHEN status = 'open' THEN NULL ELSE created_ms + 90000 END AS final_ms,
      created_ms + CASE WHEN status = 'open' THEN ${YEAR_MS}::bigint ELSE 3600000 END AS expires_ms,
      CASE WHEN i < ${p.sharedInvoice} THEN '${SHARED_INVOICE_REF}' ELSE 'INV-' || i END AS invoice_ref
    FROM (SELECT i,
        CASE WHEN i % 20 < 14 THEN 'success' WHEN i % 20 < 17 THEN 'expired' WHEN i % 20 = 17 THEN 'failed' WHEN i >= ${openFrom} THEN 'open' ELSE 'expired' END AS status,
        1000 + (i % 500) * 100 AS amount,
        floor(${p.nowMs - YEAR_MS}::float8 + i * ${step}::float8)::bigint AS created_ms
      FROM generate_series(0, ${p.n - 1}) AS i) AS base`;
}

/** Milliseconds since the epoch as the ISO text the app stores (`2026-01-02T03:04:05.678Z`), in PostgreSQL. */
export const isoSql = (ms: string) => `to_char(timestamp 'epoch' + (${ms}) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
