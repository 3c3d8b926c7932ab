import type { Rail } from './schemas/common';

export interface FeeRule {
  percent_bps: number;
  fixed_minor: number;
  cap_minor: number | null;
  bearer: 'payer' | 'merchant';
}

/**
 * Shipped defaults, per currency, for an integration with no rule of its own for a rail and a
 * currency. The fixed parts and caps are in that currency's own minor units (GHS and KES have
 * two decimals, XOF none): each currency's figures are set on their own, never converted from
 * another's. Admins override them per integration, rail and currency (docs/fees.md). Shared: the back office
 * shows the defaults of a currency that has no rules yet.
 */
const DEFAULT_FEE_RULES_BY_CURRENCY: Readonly<Record<string, Record<Rail, FeeRule>>> = {
  GHS: {
    momo: { percent_bps: 100, fixed_minor: 0, cap_minor: 2_000, bearer: 'payer' }, // 1 %, at most GHS 20.00
    card: { percent_bps: 195, fixed_minor: 0, cap_minor: null, bearer: 'merchant' }, // 1.95 %, merchant-borne
    bank_transfer: { percent_bps: 0, fixed_minor: 100, cap_minor: null, bearer: 'payer' }, // flat GHS 1.00
    cash: { percent_bps: 0, fixed_minor: 200, cap_minor: null, bearer: 'payer' }, // flat GHS 2.00 branch handling
  },
  XOF: {
    momo: { percent_bps: 100, fixed_minor: 0, cap_minor: 1_000, bearer: 'payer' }, // 1 %, at most XOF 1,000
    card: { percent_bps: 195, fixed_minor: 0, cap_minor: null, bearer: 'merchant' },
    bank_transfer: { percent_bps: 0, fixed_minor: 100, cap_minor: null, bearer: 'payer' }, // flat XOF 100
    cash: { percent_bps: 0, fixed_minor: 150, cap_minor: null, bearer: 'payer' }, // flat XOF 150
  },
  KES: {
    momo: { percent_bps: 100, fixed_minor: 0, cap_minor: 20_000, bearer: 'payer' }, // 1 %, at most KES 200.00
    card: { percent_bps: 195, fixed_minor: 0, cap_minor: null, bearer: 'merchant' },
    bank_transfer: { percent_bps: 0, fixed_minor: 5_000, cap_minor: null, bearer: 'payer' }, // flat KES 50.00
    cash: { percent_bps: 0, fixed_minor: 5_000, cap_minor: null, bearer: 'payer' }, // flat KES 50.00
  },
};

/** The currencies with shipped defaults, the default market's first. */
export const FEE_DEFAULT_CURRENCIES = Object.keys(DEFAULT_FEE_RULES_BY_CURRENCY);

/** The GHS defaults (the default market): kept under their old name for the callers that mean GHS. */
export const DEFAULT_FEE_RULES = DEFAULT_FEE_RULES_BY_CURRENCY.GHS as Record<Rail, FeeRule>;

/**
 * The default rule of a rail in a currency: the shipped one, else (a currency without shipped
 * defaults) the rail's percentage part alone, with no fixed part and no cap, since an amount in
 * one currency means nothing in another.
 */
export function defaultFeeRule(currency: string, rail: Rail): FeeRule {
  const shipped = DEFAULT_FEE_RULES_BY_CURRENCY[currency]?.[rail];
  if (shipped) return shipped;
  const { percent_bps, bearer } = DEFAULT_FEE_RULES[rail];
  return { percent_bps, fixed_minor: 0, cap_minor: null, bearer };
}
