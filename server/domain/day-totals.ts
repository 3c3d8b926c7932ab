import { sql, type Transaction } from 'kysely';
import type { Database, FinanceDayTotalsTable, InvoiceSummaryDeltasTable } from '../db/schema';

type Trx = Transaction<Database>;
type DeltaRow = Omit<InvoiceSummaryDeltasTable, 'seq'>;

/**
 * `finance_day_totals` (migration 0037): the finance overview's figures per merchant, currency,
 * UTC day, mode, rail and status, so an overview of any range reads a few rows per day
 * whatever the number of sessions. Folded with the invoice summaries from the same deltas
 * (jobs/invoice-summary-fold.ts): a created delta adds one 'created' session on its creation
 * day; a moved delta whose status is terminal (reached once per session) adds one session of
 * that status on the day it ended, and a success adds what settled it: the base amount, what
 * the payer paid (collected), the payer-borne part of the fee (collected − base) and the
 * merchant-borne rest. Net to the merchant is collected − payer fee − merchant fee.
 */
const TERMINAL = new Set(['success', 'failed', 'expired']);

type Key = Pick<FinanceDayTotalsTable, 'merchant_id' | 'currency' | 'day' | 'mode' | 'rail' | 'status'>;
type Sums = Pick<FinanceDayTotalsTable, 'sessions' | 'base_minor' | 'collected_minor' | 'payer_fee_minor' | 'merchant_fee_minor'>;

const CHUNK = 100;

/** Adds the batch's created and terminal deltas to the day totals (inside the fold's transaction). */
export async function foldDayTotals(trx: Trx, deltas: DeltaRow[]): Promise<void> {
  const created = deltas.filter((d) => Number(d.sessions) > 0 && d.session_id !== null).map((d) => d.session_id!);
  const ended = deltas.filter((d) => d.status !== null && TERMINAL.has(d.status) && d.session_id !== null).map((d) => d.session_id!);
  if (created.length === 0 && ended.length === 0) return;
  const ids = [...new Set([...created, ...ended])];
  const sessions = new Map<string, { currency: string; created_at: string; finalized_at: string | null; updated_at: string; status: string; paid_rail: string | null; amount_minor: number; mode: 'test' | 'live'; merchant_id: string }>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await trx
      .selectFrom('checkout_sessions as s')
      .innerJoin('integrations as i', 'i.id', 's.integration_id')
      .select(['s.id', 's.merchant_id', 's.currency', 's.created_at', 's.finalized_at', 's.updated_at', 's.status', 's.paid_rail', 's.amount_minor', 'i.mode'])
      .where('s.id', 'in', ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) sessions.set(r.id, { ...r, amount_minor: Number(r.amount_minor) });
  }
  const paidIds = ended.filter((id) => sessions.get(id)?.status === 'success');
  const settled = new Map<string, { fee: number; collected: number }>();
  for (let i = 0; i < paidIds.length; i += CHUNK) {
    const chunk = paidIds.slice(i, i + CHUNK);
    const attempts = await trx.selectFrom('payment_attempts').select(['session_id', 'fee_minor', 'amount_charged_minor']).where('session_id', 'in', chunk).where('status', '=', 'succeeded').execute();
    for (const a of attempts) settled.set(a.session_id, { fee: Number(a.fee_minor), collected: Number(a.amount_charged_minor) });
    const deposits = await trx
      .selectFrom('cash_deposits as d')
      .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
      .select(['d.session_id', 'd.status', 'd.amount_minor', 'sl.fee_minor'])
      .where('d.session_id', 'in', chunk)
      .execute();
    for (const d of deposits) if (d.status === 'approved') settled.set(d.session_id, { fee: Number(d.fee_minor), collected: Number(d.amount_minor) });
  }
  const acc = new Map<string, Key & Sums>();
  const add = (k: Key, s: Sums) => {
    const id = [k.merchant_id, k.currency, k.day, k.mode, k.rail, k.status].join('\u0000');
    const row = acc.get(id);
    if (!row) acc.set(id, { ...k, ...s });
    else {
      row.sessions += s.sessions;
      row.base_minor += s.base_minor;
      row.collected_minor += s.collected_minor;
      row.payer_fee_minor += s.payer_fee_minor;
      row.merchant_fee_minor += s.merchant_fee_minor;
    }
  };
  const none = { base_minor: 0, collected_minor: 0, payer_fee_minor: 0, merchant_fee_minor: 0 };
  for (const id of created) {
    const s = sessions.get(id);
    if (s) add({ merchant_id: s.merchant_id, currency: s.currency, day: s.created_at.slice(0, 10), mode: s.mode, rail: '', status: 'created' }, { sessions: 1, ...none });
  }
  for (const d of deltas) {
    if (d.status === null || !TERMINAL.has(d.status) || d.session_id === null) continue;
    const s = sessions.get(d.session_id);
    if (!s) continue;
    const status = d.status as 'success' | 'failed' | 'expired';
    const day = (s.finalized_at ?? d.sessions_updated_at ?? s.updated_at).slice(0, 10);
    if (status !== 'success') {
      add({ merchant_id: s.merchant_id, currency: s.currency, day, mode: s.mode, rail: '', status }, { sessions: 1, ...none });
      continue;
    }
    const paid = settled.get(d.session_id) ?? { fee: 0, collected: s.amount_minor };
    const payerFee = paid.collected - s.amount_minor;
    add(
      { merchant_id: s.merchant_id, currency: s.currency, day, mode: s.mode, rail: s.paid_rail ?? '', status },
      { sessions: 1, base_minor: s.amount_minor, collected_minor: paid.collected, payer_fee_minor: payerFee, merchant_fee_minor: paid.fee - payerFee },
    );
  }
  const rows = [...acc.values()].sort((a, b) => (Object.values(a).join('\u0000') < Object.values(b).join('\u0000') ? -1 : 1));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto('finance_day_totals')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'currency', 'day', 'mode', 'rail', 'status']).doUpdateSet({
          sessions: sql`finance_day_totals.sessions + excluded.sessions`,
          base_minor: sql`finance_day_totals.base_minor + excluded.base_minor`,
          collected_minor: sql`finance_day_totals.collected_minor + excluded.collected_minor`,
          payer_fee_minor: sql`finance_day_totals.payer_fee_minor + excluded.payer_fee_minor`,
          merchant_fee_minor: sql`finance_day_totals.merchant_fee_minor + excluded.merchant_fee_minor`,
        }),
      )
      .execute();
  }
}

/** Every row from the base tables (migration 0037 has a frozen copy; `invoices:rebuild` and the volume seed run it). */
export function dayTotalsRebuildSql(): string {
  return `
    INSERT INTO finance_day_totals (merchant_id, currency, day, mode, rail, status, sessions, base_minor, collected_minor, payer_fee_minor, merchant_fee_minor)
    SELECT s.merchant_id, s.currency, substr(s.created_at, 1, 10), i.mode, '', 'created', COUNT(*), 0, 0, 0, 0
    FROM checkout_sessions s JOIN integrations i ON i.id = s.integration_id
    GROUP BY s.merchant_id, s.currency, substr(s.created_at, 1, 10), i.mode
    UNION ALL
    SELECT merchant_id, currency, day, mode, rail, status, COUNT(*), SUM(base), SUM(collected), SUM(payer_fee), SUM(fee - payer_fee)
    FROM (
      SELECT s.merchant_id, s.currency, substr(COALESCE(s.finalized_at, s.updated_at), 1, 10) AS day, i.mode,
        CASE WHEN s.status = 'success' THEN COALESCE(s.paid_rail, '') ELSE '' END AS rail, s.status,
        CASE WHEN s.status = 'success' THEN s.amount_minor ELSE 0 END AS base,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN d.amount_minor ELSE COALESCE(a.amount_charged_minor, s.amount_minor) END AS collected,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN sl.fee_minor ELSE COALESCE(a.fee_minor, 0) END AS fee,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN d.amount_minor - s.amount_minor ELSE COALESCE(a.amount_charged_minor, s.amount_minor) - s.amount_minor END AS payer_fee
      FROM checkout_sessions s
      JOIN integrations i ON i.id = s.integration_id
      LEFT JOIN payment_attempts a ON s.status = 'success' AND a.session_id = s.id AND a.status = 'succeeded'
      LEFT JOIN cash_deposits d ON s.status = 'success' AND d.session_id = s.id AND d.status = 'approved'
      LEFT JOIN cash_slips sl ON sl.id = d.slip_id
      WHERE s.status IN ('success', 'failed', 'expired')
    ) t
    GROUP BY merchant_id, currency, day, mode, rail, status`;
}
