import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  CardPaymentResponse,
  CashDepositSlipResponse,
  MomoOperator,
  ProviderPaymentInitiationResponse,
  ProviderPaymentStatusResponse,
  PublicCheckoutOptions,
  PublicCheckoutQuote,
  PublicCheckoutSession,
} from '../../shared/schemas/checkout';
import type { Rail } from '../../shared/schemas/common';
import { parseJsonBody, readErrorEnvelope } from '../../shared/http-envelope';
import type { T } from '../ui/i18n';
import { CHECKOUT_API, readInit, takeStarted } from './first-fetch';

/**
 * All hosted-checkout data access: one fetch wrapper that understands the error envelope,
 * `queryOptions` factories for what the page reads, and plain functions for what it writes.
 * Same origin, no credential: the page never holds a merchant key.
 */

const BASE = CHECKOUT_API;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** A conflict means the session moved on (paid, pending, expired, fee changed): refresh, don't dead-end. */
  get isConflict(): boolean {
    return this.status === 409;
  }
}

/** Network failure (offline, server down): distinct from an API answer. */
class NetworkError extends Error {
  constructor() {
    super('network unreachable');
    this.name = 'NetworkError';
  }
}

async function request<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    // The page's first reads were started before this code arrived (first-fetch.ts): take those answers.
    const early = init.method === undefined ? await takeStarted(path) : null;
    res =
      early ??
      (await fetch(`${BASE}${path}`, {
        ...readInit,
        method: init.method ?? 'GET',
        ...(init.body === undefined ? {} : { headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
        signal: init.signal ?? null,
      }));
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new NetworkError();
  }
  // A body that is not JSON (a proxy page) reads as no envelope.
  const data = parseJsonBody(await res.text()) ?? null;
  if (!res.ok) {
    const envelope = readErrorEnvelope(data);
    const code = envelope.code ?? (res.status >= 500 ? 'INTERNAL' : 'UNKNOWN');
    const message = envelope.message ?? `Request failed (${res.status})`;
    const retryHeader = Number(res.headers.get('retry-after'));
    const retry = envelope.retryAfterSeconds ?? (Number.isFinite(retryHeader) && retryHeader > 0 ? retryHeader : null);
    throw new ApiError(res.status, code, message, retry);
  }
  return data as T;
}

const enc = encodeURIComponent;

// ------------------------------------------------------------------ query keys and factories
export const checkoutKeys = {
  all: ['checkout'] as const,
  options: () => ['checkout', 'options'] as const,
  session: (id: string) => ['checkout', 'session', id] as const,
  quote: (id: string) => ['checkout', 'session', id, 'quote'] as const,
  attempt: (id: string, attemptRef: string) => ['checkout', 'session', id, 'attempt', attemptRef] as const,
};

const TERMINAL = new Set(['success', 'failed', 'expired']);

export const sessionQuery = (id: string) =>
  queryOptions({
    queryKey: checkoutKeys.session(id),
    queryFn: ({ signal }) => request<PublicCheckoutSession>(`/sessions/${enc(id)}`, { signal }),
    // Pending sessions move on from elsewhere (teller approval, provider callback): poll them.
    // Open sessions are polled slowly so an expiry or a payment from another tab shows up.
    refetchInterval: (q) => {
      const s = q.state.data?.status;
      if (!s || TERMINAL.has(s)) return false;
      return s === 'pending' ? 4_000 : 20_000;
    },
    retry: (count, err) => !(err instanceof ApiError && err.status < 500 && err.status !== 429) && count < 3,
  });

export const optionsQuery = () =>
  queryOptions({
    queryKey: checkoutKeys.options(),
    queryFn: ({ signal }) => request<PublicCheckoutOptions>('/options', { signal }),
    staleTime: 10 * 60_000,
  });

export const quoteQuery = (id: string) =>
  queryOptions({
    queryKey: checkoutKeys.quote(id),
    queryFn: ({ signal }) => request<PublicCheckoutQuote>(`/sessions/${enc(id)}/quote`, { signal }),
    staleTime: 30_000,
    retry: (count, err) => !(err instanceof ApiError && err.status < 500 && err.status !== 429) && count < 3,
  });

/** Attempt status, asking the provider for news (`refresh=1`) while the attempt is pending. */
export const attemptQuery = (id: string, attemptRef: string, intervalMs = 3_000) =>
  queryOptions({
    queryKey: checkoutKeys.attempt(id, attemptRef),
    queryFn: ({ signal }) =>
      request<ProviderPaymentStatusResponse>(`/sessions/${enc(id)}/provider-attempts/${enc(attemptRef)}?refresh=1`, { signal }),
    // Keep asking while pending, and while a success has not yet been finalized on the session.
    refetchInterval: (q) => {
      const d = q.state.data;
      if (!d) return intervalMs;
      return d.status === 'pending' || (d.status === 'succeeded' && !d.finalized) ? intervalMs : false;
    },
    refetchIntervalInBackground: false,
    retry: (count, err) => !(err instanceof ApiError && err.status < 500 && err.status !== 429 && err.status !== 503) && count < 5,
  });

// ------------------------------------------------------------------ writes
export interface MomoAttemptInput {
  amount_minor: number;
  operator: MomoOperator;
  phone: string;
  /** The payer's country among the session's (ISO 3166 alpha-2). */
  country?: string;
}

export const startMomoAttempt = (id: string, input: MomoAttemptInput) =>
  request<ProviderPaymentInitiationResponse>(`/sessions/${enc(id)}/provider-attempts`, {
    method: 'POST',
    body: { rail: 'momo' satisfies Rail, ...input },
  });

export const startBankTransferAttempt = (id: string, amountMinor: number) =>
  request<ProviderPaymentInitiationResponse>(`/sessions/${enc(id)}/provider-attempts`, {
    method: 'POST',
    body: { rail: 'bank_transfer' satisfies Rail, amount_minor: amountMinor },
  });

export const authorizeAttempt = (id: string, attemptRef: string, code: string) =>
  request<ProviderPaymentStatusResponse>(`/sessions/${enc(id)}/provider-attempts/${enc(attemptRef)}/authorize`, {
    method: 'POST',
    body: { code },
  });

export const resendAttemptCode = (id: string, attemptRef: string) =>
  request<ProviderPaymentStatusResponse>(`/sessions/${enc(id)}/provider-attempts/${enc(attemptRef)}/resend`, { method: 'POST' });

export interface CardPaymentInput {
  amount_minor: number;
  card_number: string;
  expiry_month: number;
  expiry_year: number;
  cvc: string;
  cardholder_name?: string;
}

/** Test simulation only. The card data goes straight into the request body and nowhere else. */
export const payByCard = (id: string, input: CardPaymentInput) =>
  request<CardPaymentResponse>(`/sessions/${enc(id)}/card-payments`, { method: 'POST', body: input });

/** Creates the session's cash slip, or returns the active one with `replayed: true`. */
export const issueCashSlip = (id: string, amountMinor: number) =>
  request<CashDepositSlipResponse>('/cash-slips', { method: 'POST', body: { session_id: id, amount_minor: amountMinor } });

/**
 * After any write or conflict: re-read the session, then its quote only if it is still open.
 * Only an open session has a quote: asking while a payment is pending is a certain 409, and
 * the page would take that 409 for "the checkout changed under you".
 */
export async function refreshSession(qc: QueryClient, id: string): Promise<void> {
  await qc.invalidateQueries({ queryKey: checkoutKeys.session(id), exact: true });
  const fresh = qc.getQueryData<PublicCheckoutSession>(checkoutKeys.session(id));
  if (!fresh || fresh.status === 'open') await qc.invalidateQueries({ queryKey: checkoutKeys.quote(id), exact: true });
}

/**
 * Words for a failed call, for the payer (no codes, no jargon), by error code: the API's own
 * message is English for developers and never reaches the page.
 */
export function describeError(t: T, err: unknown): string {
  if (err instanceof NetworkError) return t('checkout.error.network');
  if (err instanceof ApiError) {
    switch (err.code) {
      case 'SESSION_NOT_PAYABLE':
        return t('checkout.error.sessionNotPayable');
      case 'PAYMENT_AMOUNT_MISMATCH':
        return t('checkout.error.amountMismatch');
      case 'PAYMENT_ATTEMPT_PENDING':
        return t('checkout.error.attemptPending');
      case 'RAIL_NOT_ALLOWED':
        return t('checkout.error.railNotAllowed');
      case 'RATE_LIMITED':
        return err.retryAfterSeconds ? t('checkout.error.rateLimitedFor', { seconds: err.retryAfterSeconds }) : t('checkout.error.rateLimited');
      case 'PROVIDER_PAYMENT_REJECTED':
        return t('checkout.error.providerRejected');
      case 'STATE_CONFLICT':
        return t('checkout.error.stateConflict');
      case 'IDEMPOTENCY_IN_PROGRESS':
        return t('checkout.error.inProgress');
      case 'PROVIDER_RAIL_UNAVAILABLE':
        return t('checkout.error.railUnavailable');
      case 'INVALID_ARGUMENT':
        return friendlyInvalid(t, err.message);
      default:
        // Never the API's developer text in front of a payer: codes without a sentence get a general one.
        if (err.status >= 500) return t('checkout.error.server');
        return t('checkout.error.generic');
    }
  }
  return t('checkout.error.unknown');
}

/** What to do about each field the server can refuse, in the payer's words (the server's reason is for developers). */
const FIELD_SENTENCES: Record<string, (t: T, reason: string) => string> = {
  phone: (t) => t('checkout.field.phone'),
  operator: (t) => t('checkout.field.operator'),
  card_number: (t, r) => (/test/i.test(r) ? t('checkout.field.testCardOnly') : t('checkout.field.cardNumber')),
  expiry_month: (t) => t('checkout.field.expiry'),
  expiry_year: (t) => t('checkout.field.expiry'),
  cvc: (t) => t('checkout.field.cvc'),
  code: (t) => t('checkout.field.code'),
  cardholder_name: (t) => t('checkout.field.cardholderName'),
  account_name: (t) => t('checkout.field.accountName'),
  amount_minor: (t) => t('checkout.error.amountMismatch'),
  session_id: (t) => t('checkout.field.sessionId'),
};

/** The request field a validation error is about (`card_number: …` → `card_number`), to show the sentence beside it. */
export function errorField(err: unknown): string | null {
  if (!(err instanceof ApiError) || err.code !== 'INVALID_ARGUMENT') return null;
  return /^([a-z_]+)/.exec(err.message)?.[1] ?? null;
}

function friendlyInvalid(t: T, message: string): string {
  const m = /^([a-z_]+)(?:\.[a-z_0-9]+)*:\s*(.*)$/s.exec(message);
  const sentence = m ? FIELD_SENTENCES[m[1]!] : undefined;
  return sentence ? sentence(t, m![2] ?? '') : t('checkout.error.checkDetails');
}
