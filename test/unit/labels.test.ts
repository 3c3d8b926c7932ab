import { describe, expect, it } from 'vitest';
import { auditValueLabel, DEPOSIT_STATUS_LABELS, OPERATOR_LABELS, RAIL_LABELS, RAIL_PAYER_LABELS, railLabel, SESSION_STATUS_LABELS, SLIP_STATUS_LABELS } from '../../shared/labels';
import { DEPOSIT_STATUSES } from '../../shared/schemas/backoffice';
import { RAILS, SESSION_STATUSES } from '../../shared/schemas/common';
import { MOMO_OPERATORS, SLIP_STATUSES } from '../../shared/schemas/checkout';

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

describe('audit before/after values in words (shared/labels.ts)', () => {
  it('names every slip state', () => {
    for (const s of SLIP_STATUSES) expect(SLIP_STATUS_LABELS[s]).toBeTruthy();
  });

  it('words the state and rail fields of an audit row, and leaves every other value to the reader', () => {
    expect(auditValueLabel('deposit_status', 'under_review')).toBe('Waiting for review');
    expect(auditValueLabel('session_status', 'success')).toBe('Paid');
    expect(auditValueLabel('slip_status', 'voided')).toBe('Voided');
    expect(auditValueLabel('rail', 'bank_transfer')).toBe('Bank transfer');
    expect(auditValueLabel('allowed_rails', ['momo', 'cash'])).toBe('Mobile Money, Cash');
    expect(auditValueLabel('session_status', 'someday')).toBeUndefined();
    expect(auditValueLabel('name', 'approved')).toBeUndefined();
  });
});
