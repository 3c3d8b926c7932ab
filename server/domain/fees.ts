import type { FeeRule } from '../../shared/fee-defaults';

export { DEFAULT_FEE_RULES, defaultFeeRule, FEE_DEFAULT_CURRENCIES, type FeeRule } from '../../shared/fee-defaults';

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
 * The rule must be one of the session's currency: callers read it by currency.
 */
export function computeFee(baseMinor: number, currency: string, rule: FeeRule): FeeQuote {
  const proportional = (BigInt(baseMinor) * BigInt(rule.percent_bps) + 5_000n) / 10_000n;
  let fee = BigInt(rule.fixed_minor) + proportional;
  if (rule.cap_minor !== null && fee > BigInt(rule.cap_minor)) fee = BigInt(rule.cap_minor);
  const feeMinor = Number(fee);
  const surcharge = rule.bearer === 'payer' ? feeMinor : 0;
  return { bearer: rule.bearer, fee_minor: feeMinor, surcharge_minor: surcharge, total_minor: baseMinor + surcharge, currency };
}
