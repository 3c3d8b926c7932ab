import type { Kysely, Transaction } from 'kysely';
import type { CheckoutSessionsTable, Database, PaymentAttemptsTable } from '../../db/schema';
import { precompiled } from '../../db/precompiled';
import { notFound } from '../../lib/errors';
import { computeFee, defaultFeeRule, type FeeQuote, type FeeRule } from '../../domain/fees';
import { RAILS, type Rail } from '../../../shared/schemas/common';
import { servedMomoCountries, type MomoCountry } from '../../../shared/countries';
import { parseMomoPhone } from '../../lib/phone';

type Q = Kysely<Database> | Transaction<Database>;

export interface SessionWithOwner extends CheckoutSessionsTable {
  merchant_name: string;
  allowed_rails: string;
  card_collection_mode: 'direct_card' | 'test_simulation';
  mode: 'test' | 'live';
  /** The integration's Mobile Money countries (JSON array), null for every country of the currency. */
  momo_countries?: string | null | undefined;
}

// The payer pages' and the quote's / attempt start's queries are compiled once.
const sessionWithOwner = precompiled((db, p: { id: string }) =>
  db
    .selectFrom('checkout_sessions as s')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .selectAll('s')
    .select(['m.name as merchant_name', 'i.allowed_rails', 'i.card_collection_mode', 'i.mode', 'i.momo_countries'])
    .where('s.id', '=', p.id),
);

export async function findSession(q: Q, id: string): Promise<SessionWithOwner> {
  const [row] = await sessionWithOwner(q, { id });
  if (!row) throw notFound(`session ${id}`);
  return row;
}

export const allowedRails = (s: SessionWithOwner): Rail[] => {
  const allowed = new Set(JSON.parse(s.allowed_rails) as string[]);
  return RAILS.filter((r) => allowed.has(r));
};

/** The Mobile Money countries the session's payer picks from: its currency's, as far as its integration serves them. */
export const sessionMomoCountries = (s: SessionWithOwner): MomoCountry[] =>
  servedMomoCountries(s.currency, s.momo_countries == null ? null : (JSON.parse(s.momo_countries) as string[]));

const feeRuleOf = precompiled((db, p: { integrationId: string; currency: string; rail: Rail }) =>
  db
    .selectFrom('fee_rules')
    .select(['percent_bps', 'fixed_minor', 'cap_minor', 'bearer'])
    .where('integration_id', '=', p.integrationId)
    .where('currency', '=', p.currency)
    .where('rail', '=', p.rail),
);

/** The integration's rule for a rail in one currency (its own, else that currency's default): never another currency's. */
export async function feeRule(q: Q, integrationId: string, currency: string, rail: Rail): Promise<FeeRule> {
  const [row] = await feeRuleOf(q, { integrationId, currency, rail });
  return row ?? defaultFeeRule(currency, rail);
}

export async function quoteRail(q: Q, s: CheckoutSessionsTable, rail: Rail): Promise<FeeQuote> {
  return computeFee(s.amount_minor, s.currency, await feeRule(q, s.integration_id, s.currency, rail));
}

const attemptOfSession = precompiled((db, p: { id: string; sessionId: string }) =>
  db.selectFrom('payment_attempts').selectAll().where('id', '=', p.id).where('session_id', '=', p.sessionId),
);

export async function findAttempt(q: Q, sessionId: string, attemptId: string): Promise<PaymentAttemptsTable> {
  const [row] = await attemptOfSession(q, { id: attemptId, sessionId });
  if (!row) throw notFound(`payment attempt ${attemptId}`);
  return row;
}

/**
 * The pending attempts of the same rail, amount and operator, newest first: attempt start replays
 * the one of the same phone (samePhone). The phone is compared after the query, normalised: an
 * attempt stored before numbers were kept in E.164 holds `233…` or `024…`. Compiled once.
 */
export const pendingAttemptsLike = precompiled((db, p: { sessionId: string; rail: Rail; amount: number; operator: string | null }) =>
  db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('session_id', '=', p.sessionId)
    .where('status', '=', 'pending')
    .where('rail', '=', p.rail)
    .where('amount_charged_minor', '=', p.amount)
    .where('operator', 'is not distinct from', p.operator)
    .orderBy('created_at', 'desc'),
);

/** Whether a stored phone (E.164, or a spelling kept before E.164) is the number `e164` of the request: both read as mobile numbers of `countries`. */
export function samePhone(stored: string | null, e164: string | null, countries: readonly MomoCountry[]): boolean {
  if (stored === null || e164 === null) return stored === e164;
  if (stored === e164) return true;
  return parseMomoPhone(stored, countries)?.e164 === e164;
}
