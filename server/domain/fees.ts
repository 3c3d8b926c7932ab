import type { Rail } from '../../shared/schemas/common';

export interface FeeRule {
  percent_bps: number;
  fixed_minor: number;
  cap_minor: number | null;
  bearer: 'payer' | 'merchant';
}

/**
 * Defaults for an integration with no fee rule of its own for a rail (staging figures in the
 * spirit of Ghanaian collection pricing). Admins override them per integration and rail.
 */
export const DEFAULT_FEE_RULES: Record<Rail, FeeRule> = {
  momo: { percent_bps: 100, fixed_minor: 0, cap_minor: 2_000, bearer: 'payer' }, // 1 %, at most 20.00
  card: { percent_bps: 195, fixed_minor: 0, cap_minor: null, bearer: 'merchant' }, // 1.95 %, merchant-borne
  bank_transfer: { percent_bps: 0, fixed_minor: 100, cap_minor: null, bearer: 'payer' }, // flat 1.00
  cash: { percent_bps: 0, fixed_minor: 200, cap_minor: null, bearer: 'payer' }, // flat 2.00 branch handling
};

export interface FeeQuote {
  bearer: 'payer' | 'merchant';
  fee_minor: number;
  surcharge_minor: number;
  total_minor: number;
  currency: string;
}

/**
 * fee = fixed + round_half_up(base × bps / 10 000), then capped. Computed in BigInt so no
 * amount loses precision; the fee is never more than the cap and never negative.
 * Payer-borne fees are added to the total (surcharge); merchant-borne fees are not.
 */
export function computeFee(baseMinor: number, currency: string, rule: FeeRule): FeeQuote {
  const proportional = (BigInt(baseMinor) * BigInt(rule.percent_bps) + 5_000n) / 10_000n;
  let fee = BigInt(rule.fixed_minor) + proportional;
  if (rule.cap_minor !== null && fee > BigInt(rule.cap_minor)) fee = BigInt(rule.cap_minor);
  const feeMinor = Number(fee);
  const surcharge = rule.bearer === 'payer' ? feeMinor : 0;
  return { bearer: rule.bearer, fee_minor: feeMinor, surcharge_minor: surcharge, total_minor: baseMinor + surcharge, currency };
}
