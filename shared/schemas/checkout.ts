import { z } from 'zod';
import { IsoDateTime, PaidAmountMinor, Rail, SessionStatus, requiredOr } from './common';
import { MOMO_COUNTRY_CODES, MOMO_NETWORKS } from '../countries';

/**
 * Hosted-checkout (payer) API shapes: `/api/v1/checkout/...`, no credential.
 * Field names follow the public API of 2026-06 (docs/checkout.md); additions are marked "extension".
 */

/**
 * Every Mobile Money network of every country (shared/countries.ts), Ghana's first. Which of them
 * a session takes, and in which number format, depends on its currency's countries: the server
 * checks that (server/lib/phone.ts).
 */
export const MOMO_OPERATORS = MOMO_NETWORKS as readonly [string, ...string[]];
export const MomoOperator = z.enum(MOMO_OPERATORS, { error: requiredOr(`must be one of ${MOMO_OPERATORS.join(', ')}`) });
export type MomoOperator = z.infer<typeof MomoOperator>;

/** A Mobile Money number as typed (spaces, dashes, a leading + or the dialling code allowed); the server reads it for the session's countries. */
const MomoPhone = z.string({ error: requiredOr('must be a string') }).max(40, { error: 'must be at most 40 characters' });

// ---------------------------------------------------------------- options
const ChoiceOption = z.object({ value: z.string(), label: z.string() });
const BranchOption = z.object({ id: z.string(), name: z.string(), code: z.string() });
const BankOption = z.object({ id: z.string(), name: z.string(), code: z.string(), branches: z.array(BranchOption) });
type ChoiceOption = z.infer<typeof ChoiceOption>;
type BranchOption = z.infer<typeof BranchOption>;
type BankOption = z.infer<typeof BankOption>;

export const PublicCheckoutOptions = z.object({
  /** Every rail hosted checkout knows, with its label. */
  payment_methods: z.array(ChoiceOption),
  /** Rails paid at a bank branch (cash deposit slips). */
  branch_payment_methods: z.array(ChoiceOption),
  /** Active banks with their active branches. */
  banks: z.array(BankOption),
  /** extension: Mobile Money networks accepted as `operator`. */
  momo_operators: z.array(ChoiceOption),
});
export type PublicCheckoutOptions = z.infer<typeof PublicCheckoutOptions>;

// ---------------------------------------------------------------- session (payer view)
const CardCollectionMode = z.enum(['direct_card', 'test_simulation']);

const PublicLineItem = z.object({ code: z.string(), name: z.string(), amount_minor: z.number().int(), currency: z.string() });

export const PublicCheckoutSession = z.object({
  id: z.string(),
  merchant_name: z.string(),
  status: SessionStatus,
  amount_minor: z.number().int(),
  currency: z.string(),
  invoice_ref: z.string(),
  description: z.string(),
  customer_name: z.string(),
  allowed_rails: z.array(Rail),
  expires_at: IsoDateTime,
  /** Absent when the session has no `callback_url` (never an empty string). */
  return_to_merchant_url: z.string().optional(),
  card_collection_mode: CardCollectionMode,
  line_items: z.array(PublicLineItem),
  /** extension: `test` or `live`, so the page can label sandbox payments. */
  mode: z.enum(['test', 'live']),
  /** extension: the countries (ISO 3166 alpha-2, shared/countries.ts) whose Mobile Money numbers pay this session: those of its currency; empty when Mobile Money is not offered. */
  momo_countries: z.array(z.enum(MOMO_COUNTRY_CODES)),
  /** extension: the rail that paid the session, once `success`. */
  paid_rail: Rail.nullable(),
  /** extension: the attempt still pending on this session, so a reloaded page can resume it. */
  pending_attempt: z
    .object({ attempt_reference: z.string(), rail: Rail, status: z.string(), instructions: z.record(z.string(), z.unknown()) })
    .nullable(),
  /** extension: the session's payable cash slip (active or under review), so a reloaded page shows it again. */
  cash_slip: z.lazy(() => CashDepositSlipResponse).nullable(),
  /**
   * extension: the last cash deposit on this session, when a supervisor rejected it and no
   * newer slip exists: the page tells the payer why and what to do about the cash handed over.
   */
  cash_rejection: z
    .object({ slip_reference: z.string(), amount_minor: z.number().int(), currency: z.string(), reason: z.string(), rejected_at: IsoDateTime })
    .nullable(),
  /** extension: once `success`, what was paid: the receipt the payer keeps. */
  payment: z
    .object({
      rail: Rail,
      base_minor: z.number().int(),
      fee_minor: z.number().int(),
      /** What the payer actually paid: base plus any payer-borne fee. */
      amount_charged_minor: z.number().int(),
      currency: z.string(),
      paid_at: IsoDateTime,
      provider: z.string(),
      /** The reference to quote to the merchant: provider reference, slip reference or bank-transfer reference. */
      reference: z.string(),
    })
    .nullable(),
});
export type PublicCheckoutSession = z.infer<typeof PublicCheckoutSession>;

// ---------------------------------------------------------------- quote
type PublicLineItem = z.infer<typeof PublicLineItem>;

const Surcharge = z.object({
  bearer: z.enum(['payer', 'merchant']),
  fee_minor: z.number().int(),
  surcharge_minor: z.number().int(),
  total_minor: z.number().int(),
  currency: z.string(),
});
type Surcharge = z.infer<typeof Surcharge>;
export const PublicCheckoutQuote = z.object({
  id: z.string(),
  status: z.string(),
  base_minor: z.number().int(),
  currency: z.string(),
  expires_at: IsoDateTime,
  allowed_rails: z.array(Rail),
  surcharges: z.record(z.string(), Surcharge),
});
export type PublicCheckoutQuote = z.infer<typeof PublicCheckoutQuote>;

// ---------------------------------------------------------------- provider attempts
export const ProviderPaymentInitiate = z.object({
  rail: Rail,
  amount_minor: PaidAmountMinor,
  operator: MomoOperator.optional(),
  phone: MomoPhone.optional(),
  /** extension: the payer's country (ISO 3166 alpha-2) among the session's; absent, the number says which. */
  country: z.enum(MOMO_COUNTRY_CODES, { error: requiredOr(`must be one of ${MOMO_COUNTRY_CODES.join(', ')}`) }).optional(),
  account_name: z.string().trim().max(200, { error: 'must be at most 200 characters' }).optional(),
});
export type ProviderPaymentInitiate = z.infer<typeof ProviderPaymentInitiate>;

export { MAX_DECLINED_ATTEMPTS } from '../checkout-limits';

const ATTEMPT_STATUSES = ['pending', 'succeeded', 'declined', 'expired'] as const;
const AttemptStatus = z.enum(ATTEMPT_STATUSES);
type AttemptStatus = z.infer<typeof AttemptStatus>;

const Instructions = z
  .object({
    mode: z.string(),
    rail: Rail,
    amount_minor: z.number().int().optional(),
    currency: z.string().optional(),
    operator: z.string().optional(),
    phone_last4: z.string().optional(),
    // bank transfer (extension)
    bank_name: z.string().optional(),
    bank_code: z.string().optional(),
    account_number: z.string().optional(),
    account_name: z.string().optional(),
    payment_reference: z.string().optional(),
    expires_at: IsoDateTime.optional(),
  })
  .loose();

/** The fields every attempt answer (initiation and status) starts with. */
const AttemptFields = z.object({
  attempt_reference: z.string(),
  provider: z.string(),
  provider_reference: z.string(),
  rail: Rail,
  status: AttemptStatus,
  amount_charged_minor: z.number().int(),
  currency: z.string(),
});

export const ProviderPaymentInitiationResponse = AttemptFields.extend({
  instructions: Instructions,
  replayed: z.boolean(),
});
export type ProviderPaymentInitiationResponse = z.infer<typeof ProviderPaymentInitiationResponse>;

export const ProviderPaymentStatusResponse = AttemptFields.extend({
  session_id: z.string(),
  session_status: SessionStatus,
  session_finalized_at: IsoDateTime.nullable(),
  raw_status: z.string(),
  refreshed: z.boolean(),
  finalized: z.boolean(),
  /** extension: why a declined attempt was declined (sandbox reason code). */
  decline_reason: z.string().nullable(),
  /** extension: seconds until `resend` may be called again (0 when it may). */
  resend_available_in_seconds: z.number().int(),
});
export type ProviderPaymentStatusResponse = z.infer<typeof ProviderPaymentStatusResponse>;

export const ProviderPaymentAuthorize = z.object({
  code: z
    .string({ error: requiredOr('must be a string') })
    .trim()
    .regex(/^\d{4,8}$/, { error: 'must be 4 to 8 digits' }),
});

export const AttemptParams = z.object({
  reference: z.string().min(1).max(80),
  attempt_reference: z.string().min(1).max(80),
});
export const AttemptStatusQuery = z.object({
  refresh: z
    .union([z.boolean(), z.enum(['1', '0', 'true', 'false'])])
    .transform((v) => v === true || v === '1' || v === 'true')
    .optional(),
});

// ---------------------------------------------------------------- card (test simulation, hosted page only)
export const CardPaymentCreate = z.object({
  amount_minor: PaidAmountMinor,
  card_number: z
    .string({ error: requiredOr('must be a string') })
    .transform((s) => s.replace(/[\s-]/g, ''))
    .refine((s) => /^\d{12,19}$/.test(s), { error: 'must be 12 to 19 digits' }),
  expiry_month: z.coerce.number({ error: requiredOr('must be a month number') }).int().min(1, { error: 'must be 1 to 12' }).max(12, { error: 'must be 1 to 12' }),
  expiry_year: z.coerce.number({ error: requiredOr('must be a year') }).int().min(2000, { error: 'must be a four-digit year' }).max(2100, { error: 'must be a four-digit year' }),
  cvc: z.string({ error: requiredOr('must be a string') }).regex(/^\d{3,4}$/, { error: 'must be 3 or 4 digits' }),
  cardholder_name: z.string().max(200).optional(),
});
export const CardPaymentResponse = z.object({
  id: z.string(),
  status: z.enum(['succeeded', 'declined']),
  brand: z.string(),
  last4: z.string(),
  amount_minor: z.number().int(),
  currency: z.string(),
  decline_reason: z.string().nullable(),
  session_id: z.string(),
  session_status: SessionStatus,
});
export type CardPaymentResponse = z.infer<typeof CardPaymentResponse>;

// ---------------------------------------------------------------- cash slips
export const CashDepositSlipCreate = z.object({
  session_id: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(80, { error: 'must be at most 80 characters' }),
  amount_minor: PaidAmountMinor,
});
export const SLIP_STATUSES = ['active', 'under_review', 'used', 'voided', 'expired'] as const;
export const CashDepositSlipResponse = z.object({
  slip_token: z.string(),
  reference: z.string(),
  amount_minor: z.number().int(),
  currency: z.string(),
  merchant_name: z.string(),
  session_reference: z.string(),
  invoice_ref: z.string(),
  description: z.string(),
  customer_name: z.string(),
  status: z.enum(SLIP_STATUSES),
  expires_at: IsoDateTime,
  replayed: z.boolean(),
  can_record: z.boolean(),
});
export type CashDepositSlipResponse = z.infer<typeof CashDepositSlipResponse>;

export const SessionRefParams = z.object({ reference: z.string().min(1).max(80) });
