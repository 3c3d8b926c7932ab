import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee, DEFAULT_FEE_RULES, type FeeRule } from '../../server/domain/fees';
import { MAX_AMOUNT_MINOR } from '../../shared/schemas/common';

const rule = (r: Partial<FeeRule>): FeeRule => ({ percent_bps: 0, fixed_minor: 0, cap_minor: null, bearer: 'payer', ...r });

describe('computeFee', () => {
  it('rounds the percentage part half up on the minor unit', () => {
    const onePercent = rule({ percent_bps: 100 });
    expect(computeFee(149, 'GHS', onePercent).fee_minor).toBe(1); // 1.49 → 1
    expect(computeFee(150, 'GHS', onePercent).fee_minor).toBe(2); // 1.50 → 2 (half up)
    expect(computeFee(151, 'GHS', onePercent).fee_minor).toBe(2);
    expect(computeFee(49, 'GHS', onePercent).fee_minor).toBe(0); // 0.49 → 0
    expect(computeFee(50, 'GHS', onePercent).fee_minor).toBe(1); // 0.50 → 1
    // 1.95 % of 123.45 = 2.407275 → 2.41 (241 minor)
    expect(computeFee(12_345, 'GHS', rule({ percent_bps: 195 })).fee_minor).toBe(241);
    // 0.25 % of 2.00 = 0.5 minor → 1
    expect(computeFee(200, 'GHS', rule({ percent_bps: 25 })).fee_minor).toBe(1);
  });

  it('adds the fixed part before capping, and the cap bounds the whole fee', () => {
    expect(computeFee(10_000, 'GHS', rule({ percent_bps: 150, fixed_minor: 50 })).fee_minor).toBe(200);
    expect(computeFee(10_000, 'GHS', rule({ percent_bps: 150, fixed_minor: 50, cap_minor: 180 })).fee_minor).toBe(180);
    expect(computeFee(10_000, 'GHS', rule({ fixed_minor: 500, cap_minor: 300 })).fee_minor).toBe(300);
    expect(computeFee(10_000, 'GHS', rule({ percent_bps: 150, cap_minor: 0 })).fee_minor).toBe(0);
  });

  it('payer-borne fees are surcharged onto the total; merchant-borne fees are not', () => {
    expect(computeFee(10_000, 'GHS', rule({ percent_bps: 100, bearer: 'payer' }))).toEqual({
      bearer: 'payer',
      fee_minor: 100,
      surcharge_minor: 100,
      total_minor: 10_100,
      currency: 'GHS',
    });
    expect(computeFee(10_000, 'XOF', rule({ percent_bps: 100, bearer: 'merchant' }))).toEqual({
      bearer: 'merchant',
      fee_minor: 100,
      surcharge_minor: 0,
      total_minor: 10_000,
      currency: 'XOF',
    });
  });

  it('stays exact at the largest accepted amount (BigInt, no float rounding)', () => {
    // 9 999 bps of 1e14 = 99 990 000 000 000 exactly; in floating point 1e14 × 9999 / 1e4 is exact too,
    // so also check an odd amount where a float product would lose the last digit.
    expect(computeFee(MAX_AMOUNT_MINOR, 'GHS', rule({ percent_bps: 9_999 })).fee_minor).toBe(99_990_000_000_000);
    const odd = 99_999_999_999_999;
    expect(computeFee(odd, 'GHS', rule({ percent_bps: 3_333 })).fee_minor).toBe(Number((BigInt(odd) * 3_333n + 5_000n) / 10_000n));
    expect(computeFee(odd, 'GHS', rule({ percent_bps: 3_333 })).fee_minor).toBe(33_329_999_999_999 + 1);
  });

  it('the defaults: Mobile Money 1 % capped at 20.00, card 1.95 % merchant-borne, bank transfer 1.00, cash 2.00', () => {
    expect(DEFAULT_FEE_RULES).toEqual({
      momo: { percent_bps: 100, fixed_minor: 0, cap_minor: 2_000, bearer: 'payer' },
      card: { percent_bps: 195, fixed_minor: 0, cap_minor: null, bearer: 'merchant' },
      bank_transfer: { percent_bps: 0, fixed_minor: 100, cap_minor: null, bearer: 'payer' },
      cash: { percent_bps: 0, fixed_minor: 200, cap_minor: null, bearer: 'payer' },
    });
    expect(computeFee(1_000_000, 'GHS', DEFAULT_FEE_RULES.momo).fee_minor).toBe(2_000); // 1 % = 100.00 → 20.00
    expect(computeFee(199_999, 'GHS', DEFAULT_FEE_RULES.momo).fee_minor).toBe(2_000); // 1 999.99 → 20.00
    expect(computeFee(1, 'GHS', DEFAULT_FEE_RULES.momo)).toMatchObject({ fee_minor: 0, total_minor: 1 });
  });

  it('properties: the fee is never negative, never above the cap, and equals the exact half-up formula', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_AMOUNT_MINOR }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.option(fc.integer({ min: 0, max: 10_000_000 })),
        fc.constantFrom('payer' as const, 'merchant' as const),
        (base, bps, fixed, cap, bearer) => {
          const q = computeFee(base, 'GHS', { percent_bps: bps, fixed_minor: fixed, cap_minor: cap, bearer });
          // Exact: fee = min(cap, fixed + floor((base·bps + 5000) / 10000)), i.e. half up.
          let exact = BigInt(fixed) + (BigInt(base) * BigInt(bps) * 2n + 10_000n) / 20_000n;
          if (cap !== null && exact > BigInt(cap)) exact = BigInt(cap);
          expect(q.fee_minor).toBe(Number(exact));
          expect(q.fee_minor).toBeGreaterThanOrEqual(0);
          if (cap !== null) expect(q.fee_minor).toBeLessThanOrEqual(cap);
          expect(Number.isSafeInteger(q.total_minor)).toBe(true);
          expect(q.surcharge_minor).toBe(bearer === 'payer' ? q.fee_minor : 0);
          expect(q.total_minor).toBe(base + q.surcharge_minor);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: half up means the remainder decides — below half rounds down, half and above rounds up', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000 }), (base, bps) => {
        const exactTimes10k = base * bps; // safe: < 2^53
        const floor = Math.floor(exactTimes10k / 10_000);
        const remainder = exactTimes10k % 10_000;
        const fee = computeFee(base, 'GHS', rule({ percent_bps: bps })).fee_minor;
        expect(fee).toBe(remainder >= 5_000 ? floor + 1 : floor);
      }),
    );
  });
});
