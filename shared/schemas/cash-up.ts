import { z } from 'zod';
import { MAX_AMOUNT_MINOR, Currency, IsoDateTime, requiredOr } from './common';
import { DepositStatus, StaffRef } from './cash-desk';

/**
 * The teller's cash-up: per teller, business day (the server's time zone) and currency, the
 * opening float, the count by denomination at close, what the drawer should hold, the
 * difference, and the two sign-offs (teller, then a different supervisor).
 */
const CASH_UP_STATUSES = ['open', 'teller_signed', 'supervisor_signed'] as const;
export const CashUpStatus = z.enum(CASH_UP_STATUSES);
export type CashUpStatus = z.infer<typeof CashUpStatus>;

const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date, YYYY-MM-DD' });

/**
 * Pieces counted per denomination code (shared/denominations.ts): `{ "note_20000": 3, "coin_50": 4 }`.
 * Non-negative integers; a currency without a table has one `total` line holding the amount.
 */
export const DenominationCounts = z
  .record(
    z.string().regex(/^[a-z]+(_\d+)?$/, { error: 'must be a denomination code such as note_20000' }).max(40),
    z
      .number({ error: requiredOr('must be a whole number of pieces') })
      .int({ error: 'must be a whole number of pieces' })
      .min(0, { error: 'must not be negative' })
      .max(MAX_AMOUNT_MINOR, { error: `must be at most ${MAX_AMOUNT_MINOR}` }),
  )
  .refine((r) => Object.keys(r).length <= 40, { error: 'must have at most 40 lines' });
export type DenominationCounts = z.infer<typeof DenominationCounts>;

const FloatAmount = z
  .number({ error: requiredOr('must be an integer number of minor units') })
  .int({ error: 'must be an integer number of minor units' })
  .min(0, { error: 'must not be negative' })
  .max(MAX_AMOUNT_MINOR, { error: `must be at most ${MAX_AMOUNT_MINOR}` });

/** Which cash-up a teller writes: their own, today unless `date` says otherwise (never a future day). */
const Which = { currency: Currency, date: DAY.optional() };

export const CashUpQuery = z.object({ date: DAY.optional(), currency: Currency.optional() });
/** The opening float: an amount, or the notes and coins handed over. Exactly one of the two. */
export const CashUpFloat = z
  .object({ ...Which, amount_minor: FloatAmount.optional(), denominations: DenominationCounts.optional() })
  .superRefine((v, ctx) => {
    if ((v.amount_minor === undefined) === (v.denominations === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['amount_minor'], message: 'give either amount_minor or denominations, not both' });
    }
  });
export const CashUpCount = z.object({ ...Which, denominations: DenominationCounts });
export const CashUpTellerSign = z.object(Which);
export const CashUpSupervisorSign = z.object({ note: z.string().trim().max(500, { error: 'must be at most 500 characters' }).optional() });
export const CashUpIdParams = z.object({ cash_up_id: z.string().min(1).max(80) });
export const CashUpListQuery = z.object({ status: CashUpStatus.optional(), date: DAY.optional(), limit: z.coerce.number().int().min(1).max(200).default(50) });

const CashUpDeposit = z.object({
  id: z.string(),
  receipt_no: z.string().nullable(),
  slip_reference: z.string(),
  created_at: IsoDateTime,
  amount_minor: z.number().int(),
  status: DepositStatus,
});

export const CashUp = z.object({
  /** Null until the teller stores a float or a count. */
  id: z.string().nullable(),
  date: z.string(),
  time_zone: z.string(),
  currency: z.string(),
  teller: StaffRef,
  branch_name: z.string().nullable(),
  status: CashUpStatus,
  /** The lines to count, largest first (a single `total` line for a currency without a table). */
  denominations: z.array(z.object({ code: z.string(), kind: z.enum(['note', 'coin', 'total']), value_minor: z.number().int() })),
  float: z.object({ amount_minor: z.number().int(), denominations: DenominationCounts.nullable() }).nullable(),
  count: z.object({ counted_minor: z.number().int(), denominations: DenominationCounts }).nullable(),
  /** Deposits of the day by review state (frozen at the teller's sign-off). */
  approved_minor: z.number().int(),
  under_review_minor: z.number().int(),
  /** Rejected deposits: their cash went back to the payer, so they are not expected in the drawer. */
  rejected_minor: z.number().int(),
  /** float + approved + under review: the cash the teller holds. */
  expected_minor: z.number().int(),
  /** counted − expected; null before a count. */
  difference_minor: z.number().int().nullable(),
  outcome: z.enum(['balanced', 'over', 'short']).nullable(),
  deposits: z.array(CashUpDeposit),
  teller_signed_at: IsoDateTime.nullable(),
  supervisor: StaffRef.nullable(),
  supervisor_signed_at: IsoDateTime.nullable(),
  supervisor_note: z.string().nullable(),
  generated_at: IsoDateTime,
});
export type CashUp = z.infer<typeof CashUp>;

/** The signed-in teller's cash-ups of one day, one per currency. */
export const CashUpDay = z.object({ date: z.string(), time_zone: z.string(), teller: StaffRef, cash_ups: z.array(CashUp) });
export type CashUpDay = z.infer<typeof CashUpDay>;
export const CashUpResult = z.object({ cash_up: CashUp });
export type CashUpResult = z.infer<typeof CashUpResult>;
export const CashUpList = z.object({ cash_ups: z.array(CashUp) });
export type CashUpList = z.infer<typeof CashUpList>;
