import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema';
import { slipReferenceKey } from '../../lib/slip-reference';

/**
 * Finance search the way a caller describes a payment: one text matched against the payer's
 * name (contains, any case), the last 4 digits of the Mobile Money number, the session id (whole
 * or its first characters), the invoice ref (contains), the printed slip reference (any case,
 * with or without dashes and spaces, O/0 and I/1 forgiven: lib/slip-reference.ts), and the provider or bank-transfer payment reference.
 * Every lookup that can be exact is exact, so it runs on an index (migration 0011); the
 * "contains" parts are scanned within the merchant only (the caller scopes the query).
 */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);


type SessionEb = ExpressionBuilder<Database & { s: Database['checkout_sessions']; m: Database['merchants'] }, 's' | 'm'>;

export function sessionSearch(eb: SessionEb, text: string) {
  const q = text.trim();
  const contains = `%${likeEscape(q)}%`;
  const attempts = eb
    .selectFrom('payment_attempts as a')
    .select('a.session_id')
    .where((a) => a.or([a('a.provider_reference', '=', q), a('a.payment_reference', '=', q), ...(/^\d{4}$/.test(q) ? [a('a.phone_last4', '=', q)] : [])]));
  // The printed slip reference as a teller would type it (any case, dashes or not, O/0, I/1).
  const slip = slipReferenceKey(q);
  return eb.or([
    eb('s.id', '=', q),
    ...(q.length >= 6 ? [sql<boolean>`s.id LIKE ${`${likeEscape(q)}%`} ESCAPE '\\'`] : []),
    sql<boolean>`lower(s.invoice_ref) LIKE lower(${contains}) ESCAPE '\\'`,
    sql<boolean>`lower(s.customer_name) LIKE lower(${contains}) ESCAPE '\\'`,
    eb('s.id', 'in', attempts),
    ...(slip ? [eb('s.id', 'in', eb.selectFrom('cash_slips as c').select('c.session_id').where('c.reference_key', '=', slip))] : []),
  ]);
}

/** An amount matches the invoice (base) amount or what was actually collected. */
export function sessionAmount(eb: SessionEb, amountMinor: number) {
  return eb.or([
    eb('s.amount_minor', '=', amountMinor),
    eb('s.id', 'in', eb.selectFrom('payment_attempts as a').select('a.session_id').where('a.amount_charged_minor', '=', amountMinor).where('a.status', '=', 'succeeded')),
    eb('s.id', 'in', eb.selectFrom('cash_deposits as d').select('d.session_id').where('d.amount_minor', '=', amountMinor).where('d.status', '=', 'approved')),
  ]);
}
