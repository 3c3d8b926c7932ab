import type { PaymentAttemptsTable } from '../../db/schema';
import { AppError, invalid } from '../../lib/errors';
import { transferWindowEnd } from '../../domain/bank-transfer-window';
import { recordInitiation } from '../../domain/attempt-transitions';
import { callProvider } from '../../providers/call';
import { IN_FLIGHT } from '../../providers/types';
import { type ProviderPaymentInitiate, type ProviderPaymentInitiationResponse } from '../../../shared/schemas/checkout';
import { findAttempt, pendingAttemptsLike, quoteRail, samePhone, sessionMomoCountries, type SessionWithOwner } from './payments.repository';
import { momoCountriesFor, parseMomoPhone, phoneFormatMessage } from '../../lib/phone';
import { MOMO_COUNTRIES } from '../../../shared/countries';
import { inFreshSession, notPayable, railProvider, requireRail, type PaymentsDeps } from './rails';
import { applyOutcome, beginAttempt, discardRefused, fullInstructions, initiationBody, lostRace, pendingRow } from './attempts';

/**
 * The payer's number and network for a Mobile Money attempt on session `s`: the number must be a
 * mobile number of one of the countries the session's payer picks from (its currency's that its
 * integration serves; the one named, if any), the network one of that country's. The number is
 * kept in E.164.
 */
function momoPayer(s: SessionWithOwner, body: ProviderPaymentInitiate): { phone: string; operator: string } {
  const currency = s.currency;
  if (momoCountriesFor(currency).length === 0) {
    throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: Mobile Money takes no ${currency} payments (its countries: ${MOMO_COUNTRIES.map((c) => `${c.name} in ${c.currency}`).join(', ')})`);
  }
  const countries = sessionMomoCountries(s);
  const named = body.country ? countries.filter((c) => c.code === body.country) : countries;
  if (named.length === 0) throw invalid('country', `must be one of ${countries.map((c) => c.code).join(', ')} for a ${currency} session`);
  const networks = [...new Set(named.flatMap((c) => c.networks.map((n) => n.value)))];
  if (!body.operator) throw invalid('operator', `is required for momo: one of ${networks.join(', ')}`);
  if (!body.phone) throw invalid('phone', `is required for momo: ${phoneFormatMessage(named).replace(/^must be /, '')}`);
  const phone = parseMomoPhone(body.phone, named);
  if (!phone) throw invalid('phone', phoneFormatMessage(named));
  const own = phone.country.networks.map((n) => n.value);
  if (!own.includes(body.operator)) throw invalid('operator', `must be one of ${own.join(', ')} for a ${phone.country.name} number`);
  return { phone: phone.e164, operator: body.operator };
}

/** POST …/provider-attempts: a Mobile Money prompt or bank-transfer instructions, in the three steps of attempts.ts. */
export async function createProviderAttempt(
  deps: PaymentsDeps,
  sessionId: string,
  body: ProviderPaymentInitiate,
): Promise<{ status: 200 | 201; body: ProviderPaymentInitiationResponse }> {
  if (body.rail === 'card' || body.rail === 'cash') {
    throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${body.rail} is not paid through provider attempts (use the ${body.rail === 'cash' ? 'cash-slips' : 'card-payments'} endpoint)`);
  }
  const begun = await inFreshSession(deps, sessionId, async (trx, s) => {
    const provider = railProvider(deps, body.rail, s.mode);
    requireRail(deps, s, body.rail);
    const payer = body.rail === 'momo' ? momoPayer(s, body) : null;
    const phone = payer?.phone ?? null;
    const operator = payer?.operator ?? null;

    // A retry of the same request while its attempt is pending replays it, whatever the session
    // status. An open session has no pending attempt (starting one moves it to pending, and every
    // move back to open settles or discards the attempt first; test/drills/fuzz.test.ts checks
    // it), so the lookup is skipped for the common case, a first attempt on an open session.
    const candidates = s.status === 'open' ? [] : await pendingAttemptsLike(trx, { sessionId: s.id, rail: body.rail, amount: body.amount_minor, operator });
    const same = candidates.find((a) => samePhone(a.phone, phone, momoCountriesFor(s.currency)));
    if (same) return { replay: initiationBody(same, { mode: fullInstructions(same, s).mode, rail: same.rail }, true) };

    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, body.rail);
    if (body.amount_minor !== quote.total_minor) {
      throw new AppError(
        'PAYMENT_AMOUNT_MISMATCH',
        `amount_minor: ${body.amount_minor} differs from the current ${body.rail} total ${quote.total_minor}; refresh the quote and use the current amount`,
      );
    }
    const now = deps.clock.now();
    const row: PaymentAttemptsTable & { status: 'pending' } = {
      ...pendingRow(deps, s, quote, body.rail, provider.name, IN_FLIGHT.initiating),
      operator,
      phone,
      phone_last4: phone ? phone.slice(-4) : null,
      account_name: body.account_name ?? null,
      code_sent_at: body.rail === 'momo' ? now.toISOString() : null,
      prompt_expires_at: body.rail === 'bank_transfer' ? transferWindowEnd(deps, now) : null,
    };
    // A Mobile Money prompt, or bank-transfer instructions for their window, is a confirmation
    // under way: the session waits for it (pending) and refuses other payments meanwhile.
    const cause = body.rail === 'momo' ? `momo attempt ${row.id} prompt sent` : `bank transfer attempt ${row.id} instructions issued, valid until ${row.prompt_expires_at}`;
    await beginAttempt(trx, deps, row, cause);
    return { row, s, provider };
  });
  if (begun.replay) return { status: 200, body: begun.replay };
  const { row, s, provider } = begun;
  if (!provider.initiate) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${row.rail} provider starts no payment attempts`);
  const initiate = provider.initiate.bind(provider);
  const started = await callProvider(deps, () =>
    initiate({
      attemptId: row.id,
      sessionId: s.id,
      merchantName: s.merchant_name,
      chargeMinor: row.amount_charged_minor,
      currency: s.currency,
      operator: row.operator ?? undefined,
      phone: row.phone ?? undefined,
      accountName: body.account_name,
      sessionExpiresAt: s.expires_at,
      now: new Date(row.created_at),
    }),
  ).catch((err: unknown) => discardRefused(deps, row, err));
  const progress = {
    provider: started.provider,
    provider_reference: started.providerReference,
    scenario: started.scenario,
    raw_status: started.rawStatus,
    payment_reference: started.paymentReference ?? null,
    prompt_expires_at: started.promptExpiresAt ?? row.prompt_expires_at,
    updated_at: deps.clock.now().toISOString(),
  };
  if (started.status === 'pending') {
    // The common answer (a prompt sent, instructions issued) moves nothing else: one conditional
    // update, which returns the attempt as it now is.
    const after = await recordInitiation(deps.db, row.id, progress, IN_FLIGHT.initiating);
    if (!after) throw lostRace();
    return { status: 201 as const, body: initiationBody(after, fullInstructions(after, s), false) };
  }
  return deps.db.transaction().execute(async (trx) => {
    const a = await recordInitiation(trx, row.id, progress, IN_FLIGHT.initiating);
    if (!a) throw lostRace();
    await applyOutcome(trx, deps, a, started, `${a.rail} attempt ${a.id} ${started.status} at initiation`);
    const after = await findAttempt(trx, s.id, row.id);
    return { status: 201 as const, body: initiationBody(after, fullInstructions(after, s), false) };
  });
}
