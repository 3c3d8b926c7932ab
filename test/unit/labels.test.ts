import { describe, expect, it } from 'vitest';
import { OPERATOR_LABELS, RAIL_LABELS, RAIL_PAYER_LABELS, railLabel } from '../../shared/labels';
import { RAILS } from '../../shared/schemas/common';
import { MOMO_OPERATORS } from '../../shared/schemas/checkout';

describe('one wording per place for rails and operators (shared/labels.ts)', () => {
  it('names every rail of the contract, short for staff and long for the payer', () => {
    for (const r of RAILS) {
      expect(RAIL_LABELS[r]).toBeTruthy();
      expect(RAIL_PAYER_LABELS[r]).toBeTruthy();
    }
    expect(RAIL_LABELS.cash).toBe('Cash');
    expect(RAIL_PAYER_LABELS.cash).toBe('Cash at a bank branch');
  });

  it('names every Mobile Money operator of the contract', () => {
    for (const o of MOMO_OPERATORS) expect(OPERATOR_LABELS[o]).toBeTruthy();
  });

  it('reads an unknown rail as its code and a missing one as a dash', () => {
    expect(railLabel('bank_transfer')).toBe('Bank transfer');
    expect(railLabel('crypto')).toBe('crypto');
    expect(railLabel(null)).toBe('—');
  });
});
