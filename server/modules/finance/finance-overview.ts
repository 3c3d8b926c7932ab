import { sql } from 'kysely';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { catchUpInvoiceSummaries } from '../../jobs/invoice-summary-fold';
import { RAILS, type Rail } from '../../../shared/schemas/common';
import type { Overview, OverviewQuery } from '../../../shared/schemas/overview';
import { OVERVIEW_MAX_DAYS } from '../../../shared/schemas/overview';
import { AppError } from '../../lib/errors';

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/**
 * The finance overview of one merchant: a few index reads whatever the number of sessions.
 * Money and counts from `finance_day_totals` (migration 0037: rows per day, rail and status),
 * open exceptions from `invoice_summaries`' two partial indexes of invoices that do not
 * reconcile less those a clerk resolved or ignored at their current figures
 * (`exception_reviews`), held deliveries from the held-delivery index.
 */
export async function financeOverview(deps: AppDeps, merchantId: string, q: OverviewQuery): Promise<Overview> {
  const db = deps.db;
  await catchUpInvoiceSummaries(db); // read-your-writes: the day totals are folded with the summaries
  const today = deps.clock.now().toISOString().slice(0, 10);
  const to = q.to ?? (q.from ? addDays(q.from, 29) : today);
  const from = q.from ?? addDays(to, -29);
  if (from > to) throw new AppError('INVALID_ARGUMENT', 'from: must not be after to');
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS + 1 > OVERVIEW_MAX_DAYS) throw new AppError('INVALID_ARGUMENT', `to: a range of at most ${OVERVIEW_MAX_DAYS} days`);
  // Independent reads side by side (several pool connections on PostgreSQL); the currency picked
  // by default needs the merchant's currencies first.
  const currenciesP = merchantCurrencies(db, merchantId);
  const currency = q.currency ?? (await currenciesP)[0] ?? 'GHS';
  // Rows as stored (a few per day), added up here: cheaper than GROUP BY and ORDER BY for a few thousand rows.
  let rows = db
    .selectFrom('finance_day_totals')
    .select(['day', 'rail', 'status', 'sessions', 'collected_minor', 'payer_fee_minor', 'merchant_fee_minor'])
    .where('merchant_id', '=', merchantId)
    .where('currency', '=', currency)
    .where('day', '>=', from)
    .where('day', '<=', to);
  if (q.mode !== 'all') rows = rows.where('mode', '=', q.mode);
  const [found, currencies, exceptionsOpen, held] = await Promise.all([rows.execute(), currenciesP, openExceptionCount(db, merchantId, currency), heldDeliveries(db, merchantId)]);

  const zero = () => ({ gross_minor: 0, payer_fee_minor: 0, merchant_fee_minor: 0, net_minor: 0, payments: 0 });
  const totals = zero();
  const byRail = new Map<Rail, ReturnType<typeof zero>>(RAILS.map((r) => [r, zero()]));
  const counts = { created: 0, success: 0, failed: 0, expired: 0 };
  const days = new Map<string, Overview['days'][number]>();
  for (let d = from; d <= to; d = addDays(d, 1)) days.set(d, { day: d, created: 0, success: 0, failed: 0, expired: 0, collected_minor: Object.fromEntries(RAILS.map((r) => [r, 0])) as Record<Rail, number> });
  for (const r of found) {
    const n = Number(r.sessions);
    const day = days.get(r.day);
    if (!day) continue;
    const status = r.status as keyof typeof counts;
    counts[status] += n;
    day[status] += n;
    if (r.status !== 'success') continue;
    const gross = Number(r.collected_minor);
    const payerFee = Number(r.payer_fee_minor);
    const merchantFee = Number(r.merchant_fee_minor);
    const parts = [totals, ...((RAILS as readonly string[]).includes(r.rail) ? [byRail.get(r.rail as Rail)!] : [])];
    for (const t of parts) {
      t.gross_minor += gross;
      t.payer_fee_minor += payerFee;
      t.merchant_fee_minor += merchantFee;
      t.net_minor += gross - payerFee - merchantFee;
      t.payments += n;
    }
    if ((RAILS as readonly string[]).includes(r.rail)) day.collected_minor[r.rail as Rail] += gross;
  }
  return {
    merchant_id: merchantId,
    currency,
    currencies: currencies.includes(currency) ? currencies : [...currencies, currency],
    from,
    to,
    mode: q.mode,
    totals,
    rails: RAILS.map((rail) => ({ rail, ...byRail.get(rail)! })),
    counts,
    exceptions_open: exceptionsOpen,
    held_deliveries: held,
    days: [...days.values()],
  };
}

/** The merchant's currencies, most sessions first. */
async function merchantCurrencies(db: Db, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('finance_day_totals')
    .select('currency')
    .select((eb) => eb.fn.sum<number>('sessions').as('n'))
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'created')
    .groupBy('currency')
    .execute();
  return rows.sort((a, b) => Number(b.n) - Number(a.n) || (a.currency < b.currency ? -1 : 1)).map((r) => r.currency);
}

/**
 * Invoices of the merchant (in this currency) holding an exception that no review closed at
 * the invoice's current figures. Every invoice the two partial indexes find holds at least one
 * exception (finance-exceptions.service.ts): two payments or more, or one that differs from
 * the billed total.
 */
export async function openExceptionCount(db: Db, merchantId: string, currency: string | null): Promise<number> {
  const part = (several: boolean) => {
    let q = db
      .selectFrom('invoice_summaries as s')
      .leftJoin('exception_reviews as r', (j) =>
        j
          .onRef('r.merchant_id', '=', 's.merchant_id')
          .onRef('r.invoice_ref', '=', 's.invoice_ref')
          .onRef('r.success_count', '=', 's.success_count')
          .onRef('r.paid_minor', '=', 's.paid_minor')
          .onRef('r.billed_minor', '=', 's.billed_minor')
          .on('r.status', '<>', 'open'),
      )
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('s.merchant_id', '=', merchantId)
      .where('r.invoice_ref', 'is', null);
    q = several ? q.where('s.success_count', '>', 1) : q.where('s.success_count', '=', 1).where('s.line_count', '>', 0).whereRef('s.paid_minor', '<>', 's.billed_minor');
    if (currency !== null) q = q.where(sql<string>`COALESCE(s.line_currency, s.latest_session_currency)`, '=', currency);
    return q.executeTakeFirstOrThrow();
  };
  const [a, b] = await Promise.all([part(true), part(false)]);
  return Number(a.n) + Number(b.n);
}

/** Deliveries of the merchant's integrations held for a disabled endpoint. */
async function heldDeliveries(db: Db, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('integrations as i', 'i.id', 'e.integration_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('i.merchant_id', '=', merchantId)
    .where('d.held_at', 'is not', null)
    .where('d.status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
