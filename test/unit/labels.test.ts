import { describe, expect, it } from 'vitest';
import { DEPOSIT_STATUS_LABELS, OPERATOR_LABELS, RAIL_LABELS, RAIL_PAYER_LABELS, railLabel, SESSION_STATUS_LABELS } from '../../shared/labels';
import { DEPOSIT_STATUSES } from '../../shared/schemas/backoffice';
import { RAILS, SESSION_STATUSES } from '../../shared/schemas/common';
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

describe('session and deposit states in words (shared/labels.ts)', () => {
  it('names every session state and every deposit state of the contract', () => {
    for (const s of SESSION_STATUSES) expect(SESSION_STATUS_LABELS[s]).toBeTruthy();
    for (const s of DEPOSIT_STATUSES) expect(DEPOSIT_STATUS_LABELS[s]).toBeTruthy();
    expect(SESSION_STATUS_LABELS.failed).toBe('Closed, not paid');
  });
});
