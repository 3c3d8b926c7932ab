import type { Db } from '../../server/db/database';
import type { InvoiceSummariesTable } from '../../server/db/schema';

/**
 * The rows `invoice_summaries` (migration 0017) must hold, recomputed here in JS from
 * invoice_lines and checkout_sessions (of one merchant, or all), and the stored rows in the
 * same shape (numbers as numbers, sorted by merchant then ref).
 */
export type ExpectedSummary = InvoiceSummariesTable;

const maxOf = (xs: Array<string | null>) => xs.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
const minOf = (xs: Array<string | null>) => xs.reduce<string | null>((a, b) => (b !== null && (a === null || b < a) ? b : a), null);

/** Code-point order (the database's collation may differ). */
const byKey = (a: { merchant_id: string; invoice_ref: string }, b: { merchant_id: string; invoice_ref: string }) =>
  a.merchant_id === b.merchant_id ? (a.invoice_ref < b.invoice_ref ? -1 : 1) : a.merchant_id < b.merchant_id ? -1 : 1;

export async function summariesFromBase(db: Db, merchantId?: string): Promise<ExpectedSummary[]> {
  let lq = db.selectFrom('invoice_lines').selectAll();
  let sq = db.selectFrom('checkout_sessions').selectAll();
  if (merchantId !== undefined) {
    lq = lq.where('merchant_id', '=', merchantId);
    sq = sq.where('merchant_id', '=', merchantId);
  }
  const lines = await lq.execute();
  const sessions = await sq.execute();
  const key = (r: { merchant_id: string; invoice_ref: string }) => JSON.stringify([r.merchant_id, r.invoice_ref]);
  const keys = [...new Set([...lines.map(key), ...sessions.map(key)])].map((k) => JSON.parse(k) as [string, string]).sort((a, b) => byKey({ merchant_id: a[0], invoice_ref: a[1] }, { merchant_id: b[0], invoice_ref: b[1] }));
  return keys.map(([merchant, ref]) => {
    const ls = lines.filter((l) => l.merchant_id === merchant && l.invoice_ref === ref);
    const ss = sessions.filter((s) => s.merchant_id === merchant && s.invoice_ref === ref);
    const ok = ss.filter((s) => s.status === 'success');
    const latest = [...ss].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))[0];
    const linesRemittedAt = ls.length > 0 && ls.every((l) => l.remitted === 1) ? maxOf(ls.map((l) => l.remitted_at)) : null;
    const remittedAt = ls.length > 0 ? linesRemittedAt : minOf(ok.map((s) => s.finalized_at));
    return {
      merchant_id: merchant,
      invoice_ref: ref,
      line_currency: minOf(ls.map((l) => l.currency)),
      line_count: ls.length,
      billed_minor: ls.reduce((n, l) => n + l.amount_minor, 0),
      lines_remitted_at: linesRemittedAt,
      lines_updated_at: maxOf(ls.map((l) => l.updated_at)),
      session_count: ss.length,
      success_count: ok.length,
      paid_minor: ok.reduce((n, s) => n + s.amount_minor, 0),
      first_success_at: minOf(ok.map((s) => s.finalized_at)),
      sessions_updated_at: maxOf(ss.map((s) => s.updated_at)),
      latest_session_id: latest?.id ?? null,
      latest_session_created_at: latest?.created_at ?? null,
      latest_session_status: latest?.status ?? null,
      latest_session_currency: latest?.currency ?? null,
      remitted: remittedAt === null ? 0 : 1,
      remitted_at: remittedAt,
      updated_at: maxOf([maxOf(ls.map((l) => l.updated_at)), maxOf(ss.map((s) => s.updated_at))]) ?? '',
      test_line_count: ls.filter((l) => l.mode === 'test').length,
      test_billed_minor: ls.filter((l) => l.mode === 'test').reduce((n, l) => n + l.amount_minor, 0),
      test_success_count: ok.filter((s) => s.id.startsWith('cs_test_')).length,
      test_paid_minor: ok.filter((s) => s.id.startsWith('cs_test_')).reduce((n, s) => n + s.amount_minor, 0),
    };
  });
}

export async function storedSummaries(db: Db, merchantId?: string) {
  const rows = await db
    .selectFrom('invoice_summaries')
    .selectAll()
    .$if(merchantId !== undefined, (q) => q.where('merchant_id', '=', merchantId ?? ''))
    .execute();
  return rows.sort(byKey).map((r) => ({ ...r, line_count: Number(r.line_count), billed_minor: Number(r.billed_minor), session_count: Number(r.session_count), success_count: Number(r.success_count), paid_minor: Number(r.paid_minor), remitted: Number(r.remitted) }));
}
