import type { Db } from '../../db/database';

/**
 * What actually settled a successful session: the succeeded provider attempt, or the approved
 * cash deposit with its slip. One reading for the session list, the detail, the timeline and
 * the CSV, so base, fee and collected amount are the same number everywhere.
 */
export interface Settlement {
  fee_minor: number;
  collected_minor: number;
  /** Slip reference, bank-transfer payment reference or provider reference, in that order. */
  reference: string | null;
  deposit: { id: string; recorded_by: string; approved_by: string | null } | null;
}

export async function settlements(db: Db, sessionIds: string[]): Promise<Map<string, Settlement>> {
  const out = new Map<string, Settlement>();
  if (sessionIds.length === 0) return out;
  const [attempts, deposits] = await Promise.all([
    db
      .selectFrom('payment_attempts')
      .select(['session_id', 'fee_minor', 'amount_charged_minor', 'payment_reference', 'provider_reference'])
      .where('session_id', 'in', sessionIds)
      .where('status', '=', 'succeeded')
      .execute(),
    db
      .selectFrom('cash_deposits as d')
      .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
      .innerJoin('staff_users as rec', 'rec.id', 'd.recorded_by')
      .leftJoin('staff_users as rev', 'rev.id', 'd.reviewed_by')
      .select(['d.id', 'd.session_id', 'd.status', 'd.amount_minor', 'sl.reference', 'sl.fee_minor', 'rec.username as recorded_by', 'rev.username as approved_by'])
      // The status is checked below, not here: with `status = 'approved'` in the query SQLite
      // read every approved deposit through cash_deposits_status instead of the few of these
      // sessions through cash_deposits_session (43 ms instead of 1 ms per 200 sessions at
      // 20,000 deposits: each payments-export batch and each session-list page paid it).
      .where('d.session_id', 'in', sessionIds)
      .execute(),
  ]);
  for (const a of attempts) {
    out.set(a.session_id, { fee_minor: a.fee_minor, collected_minor: a.amount_charged_minor, reference: a.payment_reference ?? a.provider_reference, deposit: null });
  }
  for (const d of deposits) {
    if (d.status !== 'approved') continue;
    out.set(d.session_id, { fee_minor: d.fee_minor, collected_minor: d.amount_minor, reference: d.reference, deposit: { id: d.id, recorded_by: d.recorded_by, approved_by: d.approved_by } });
  }
  return out;
}
