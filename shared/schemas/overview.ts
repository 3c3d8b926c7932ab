import { z } from 'zod';
import { Currency, RAILS } from './common';

/**
 * Finance overview (`GET /api/backoffice/v1/overview`): the money of a date range in one
 * currency, from the day totals (UTC days). Shared by the server and the back office.
 */
const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD' })
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), { error: 'must be a date YYYY-MM-DD' });

export const OVERVIEW_MAX_DAYS = 400;

export const OverviewQuery = z
  .object({
    merchant_id: z.string().max(80).optional(),
    /** Default: the merchant's currency with the most sessions (GHS when it has none). */
    currency: Currency.optional(),
    /** First and last day, both included (UTC). Default: the last 30 days up to today. */
    from: Day.optional(),
    to: Day.optional(),
    mode: z.enum(['live', 'test', 'all']).default('all'),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { error: 'must not be after to', path: ['from'] });
export type OverviewQuery = z.infer<typeof OverviewQuery>;

const Minor = z.number().int();

const OverviewTotals = z.object({
  /** What payers paid for the successful payments (base amounts plus payer-borne fees). */
  gross_minor: Minor,
  /** Fees added to what the payer paid. */
  payer_fee_minor: Minor,
  /** Fees taken from the merchant's amount. */
  merchant_fee_minor: Minor,
  /** gross − payer fees − merchant fees: what reaches the merchant. */
  net_minor: Minor,
  payments: z.number().int(),
});

const OverviewRail = OverviewTotals.extend({ rail: z.enum(RAILS) });

const OverviewDay = z.object({
  day: Day,
  created: z.number().int(),
  success: z.number().int(),
  failed: z.number().int(),
  expired: z.number().int(),
  /** What was collected that day on each rail (gross). */
  collected_minor: z.object({ momo: Minor, card: Minor, bank_transfer: Minor, cash: Minor }),
});

export const Overview = z.object({
  merchant_id: z.string(),
  currency: z.string(),
  /** Currencies the merchant has sessions in (for the currency picker). */
  currencies: z.array(z.string()),
  from: Day,
  to: Day,
  mode: z.enum(['live', 'test', 'all']),
  totals: OverviewTotals,
  rails: z.array(OverviewRail),
  /** Sessions created in the range, and those that ended in it, by how they ended. */
  counts: z.object({ created: z.number().int(), success: z.number().int(), failed: z.number().int(), expired: z.number().int() }),
  /** Invoices with a payment problem nobody has resolved or ignored (all dates). */
  exceptions_open: z.number().int(),
  /** Webhook deliveries held because their endpoint is disabled (all dates). */
  held_deliveries: z.number().int(),
  days: z.array(OverviewDay),
});
export type Overview = z.infer<typeof Overview>;
