import { AppError } from '../../lib/errors';
import { recordProgress } from '../../domain/attempt-transitions';
import { callProvider } from '../../providers/call';
import { IN_FLIGHT } from '../../providers/types';
import type { CardPaymentResponse } from '../../../shared/schemas/checkout';
import { findAttempt, findSession, quoteRail } from './payments.repository';
import { loadFresh, notPayable, railProvider, requireRail, type PaymentsDeps } from './rails';
import { applyOutcome, beginAttempt, discardRefused, lostRace, pendingRow } from './attempts';
import { expireDue } from '../../domain/session-transitions';

export interface CardInput {
  amount_minor: number;
  card_number: string;
  expiry_month: number;
  expiry_year: number;
}

/**
 * Card payment in test simulation: the number and code go to the provider and are dropped.
 * The charge holds the session (pending) like any other provider call, so two charges at
 * once cannot both reach the provider.
 */
export async function payByCard(deps: PaymentsDeps, sessionId: string, card: CardInput): Promise<{ status: 201; body: CardPaymentResponse }> {
  await expireDue(deps, sessionId);
  const { row, charge } = await deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    requireRail(deps, s, 'card');
    if (s.card_collection_mode !== 'test_simulation') {
      throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: card is collected by the direct card provider for this integration, not the test simulation');
    }
    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, 'card');
    if (card.amount_minor !== quote.total_minor) {
      throw new AppError('PAYMENT_AMOUNT_MISMATCH', `amount_minor: ${card.amount_minor} differs from the current card total ${quote.total_minor}; refresh the quote`);
    }
    const provider = railProvider(deps, 'card', s.mode);
    if (!provider.charge) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: card provider takes no card charges');
    const row = { ...pendingRow(deps, s, quote, 'card', provider.name, IN_FLIGHT.charging), scenario: 'card' };
    await beginAttempt(trx, deps, row, `card payment ${row.id} sent to the card provider`);
    return { row, charge: provider.charge.bind(provider) };
  });
  const input = { attemptId: row.id, chargeMinor: row.amount_charged_minor, currency: row.currency, cardNumber: card.card_number, expiryMonth: card.expiry_month, expiryYear: card.expiry_year };
  const result = await callProvider(deps, () => charge({ ...input, now: new Date(row.created_at) })).catch((err: unknown) => discardRefused(deps, row, err));
  return deps.db.transaction().execute(async (trx) => {
    await recordProgress(trx, row.id, { provider_reference: result.providerReference, card_brand: result.brand, card_last4: result.last4 });
    const current = await findAttempt(trx, sessionId, row.id);
    if (!(await applyOutcome(trx, deps, current, result, `card payment ${row.id} approved`))) throw lostRace();
    const after = await findSession(trx, sessionId);
    return {
      status: 201 as const,
      body: {
        id: row.id,
        status: result.status === 'succeeded' ? 'succeeded' : 'declined',
        brand: result.brand,
        last4: result.last4,
        amount_minor: row.amount_charged_minor,
        currency: row.currency,
        decline_reason: result.declineReason ?? null,
        session_id: sessionId,
        session_status: after.status,
      },
    };
  });
}

