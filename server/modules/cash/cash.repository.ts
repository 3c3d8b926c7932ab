import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { slipReferenceKey } from '../../lib/slip-reference';
import type { CashDeposit } from '../../../shared/schemas/backoffice';

/** The cash area's reads: deposits with their slip, session, merchant, staff and branch; slips by token or reference. */
type Q = Kysely<Database> | Transaction<Database>;

export const depositQuery = (q: Q) =>
  q
    .selectFrom('cash_deposits as d')
    .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
    .innerJoin('checkout_sessions as s', 's.id', 'd.session_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .innerJoin('staff_users as rec', 'rec.id', 'd.recorded_by')
    .leftJoin('staff_users as rev', 'rev.id', 'd.reviewed_by')
    .leftJoin('branches as br', 'br.id', 'd.branch_id')
    .leftJoin('banks as bk', 'bk.id', 'br.bank_id')
    .selectAll('d')
    .select([
      'sl.reference as slip_reference',
      's.status as session_status',
      's.merchant_id',
      's.invoice_ref',
      's.customer_name',
      's.description',
      'i.mode',
      'm.name as merchant_name',
      'rec.username as recorded_by_username',
      'rec.full_name as recorded_by_full_name',
      'rev.username as reviewed_by_username',
      'rev.full_name as reviewed_by_full_name',
      'br.name as branch_name',
      'bk.name as bank_name',
    ]);

type DepositRow = Awaited<ReturnType<ReturnType<typeof depositQuery>['executeTakeFirstOrThrow']>>;

export function toDeposit(r: DepositRow): CashDeposit {
  return {
    id: r.id,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    slip_reference: r.slip_reference,
    session_id: r.session_id,
    session_status: r.session_status,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    invoice_ref: r.invoice_ref,
    customer_name: r.customer_name ?? '',
    description: r.description ?? '',
    mode: r.mode,
    branch_id: r.branch_id,
    branch_name: r.branch_name ? `${r.bank_name ?? ''}, ${r.branch_name}`.replace(/^, /, '') : null,
    note: r.note,
    recorded_by: { id: r.recorded_by, username: r.recorded_by_username, full_name: r.recorded_by_full_name ?? null },
    reviewed_by: r.reviewed_by ? { id: r.reviewed_by, username: r.reviewed_by_username ?? '', full_name: r.reviewed_by_full_name ?? null } : null,
    review_reason: r.review_reason,
    created_at: r.created_at,
    reviewed_at: r.reviewed_at,
    receipt_no: r.receipt_no ?? null,
  };
}

export async function findDeposit(q: Q, id: string): Promise<CashDeposit> {
  const row = await depositQuery(q).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`deposit ${id}`);
  return toDeposit(row);
}

/**
 * The slip a teller scanned or typed: its token (`slp_…`, exact), or its printed reference in
 * any case, with or without dashes and spaces (server/lib/slip-reference.ts).
 */
export async function findSlip(q: Q, tokenOrReference: string) {
  const byToken = await q.selectFrom('cash_slips').selectAll().where('token', '=', tokenOrReference.trim()).executeTakeFirst();
  if (byToken) return byToken;
  const key = slipReferenceKey(tokenOrReference);
  const byReference = key ? await q.selectFrom('cash_slips').selectAll().where('reference_key', '=', key).executeTakeFirst() : undefined;
  if (!byReference) throw notFound(`cash slip ${tokenOrReference}`);
  return byReference;
}

