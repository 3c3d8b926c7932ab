import { describe, expect, it } from 'vitest';
import { formatDateTime, formatDay, formatMoney, formatTime, formatTimeIn, formatZone, minorToDecimal, parseAmount } from '../../renderer/backoffice/features/common/format';
import { applyLanguage } from '../../renderer/ui/i18n/locale';
import { formatDateTime as payerDateTime } from '../../renderer/checkout/format';
import { formatMoney as formatMoneyIn } from '../../shared/money';

describe('back-office amounts', () => {
  const minor = (text: string, currency: string) => {
    const r = parseAmount(text, currency, 'en-GH');
    return r.ok ? r.minor : null;
  };
  it('parses what a teller types into exact minor units, in the currency’s decimals', () => {
    expect(minor('224.50', 'GHS')).toBe(22_450);
    expect(minor('224.5', 'GHS')).toBe(22_450);
    expect(minor('1,250', 'GHS')).toBe(125_000);
    expect(minor('GHS 0.07', 'GHS')).toBe(7);
    expect(minor('1500', 'JPY')).toBe(1_500);
    expect(minor('1.234', 'BHD')).toBe(1_234);
    expect(minor('999,999,999,999.99', 'GHS')).toBe(99_999_999_999_999);
  });

  it('refuses what is not an amount, or has more decimals than the currency', () => {
    for (const bad of ['', 'abc', '1.2.3', '-5', '1.005', '12e3']) expect(minor(bad, 'GHS'), bad).toBeNull();
    expect(minor('10.5', 'JPY')).toBeNull();
  });

  it('formats minor units exactly, with the currency code', () => {
    expect(minorToDecimal(22_450, 'GHS')).toBe('224.50');
    expect(minorToDecimal(7, 'GHS')).toBe('0.07');
    expect(minorToDecimal(99_999_999_999_999, 'GHS')).toBe('999999999999.99');
    expect(formatMoney(22_450, 'GHS').replace(/\s/g, ' ')).toMatch(/GHS\s?224\.50/);
    expect(formatMoney(1_500, 'JPY')).toMatch(/1,500/);
  });

  it('writes each currency with its ISO 4217 decimals, as the CSV decimal columns and receipts do', () => {
    expect(minorToDecimal(250_000, 'XOF')).toBe('250000');
    expect(minorToDecimal(151_500, 'KES')).toBe('1515.00');
    expect(minorToDecimal(1_234, 'BHD')).toBe('1.234');
    expect(formatMoneyIn(250_000, 'XOF', 'fr-FR')).toMatch(/^250\s000\sXOF$/u);
    expect(formatMoneyIn(19_653, 'GHS', 'fr-FR')).toMatch(/^196,53\sGHS$/u);
    expect(formatMoneyIn(19_653, 'GHS', 'en-GH')).toMatch(/^GHS\s196\.53$/u);
  });
});

describe('times name their zone', () => {
  it('writes the zone or offset after every staff and payer time, and the instance zone with its offset', () => {
    const zone = /(GMT|UTC)([+-]\d{1,2}(:\d{2})?)?$/;
    expect(formatDateTime('2026-06-12T14:05:00Z')).toMatch(zone);
    expect(formatDateTime('2026-06-12T14:05:09Z', { seconds: true })).toMatch(/:09\s?(am|pm|AM|PM)?\s(GMT|UTC)/);
    expect(formatTime('2026-06-12T14:05:00Z')).toMatch(zone);
    expect(payerDateTime('2026-06-12T14:05:00Z')).toMatch(zone);
    expect(formatZone('Africa/Accra')).toMatch(/^Africa\/Accra \(GMT(\+0)?\)$/);
    expect(formatZone('Africa/Lagos', new Date('2026-06-12T14:05:00Z'))).toBe('Africa/Lagos (GMT+1)');
    expect(formatZone('Not/AZone')).toBe('Not/AZone');
  });
});

describe('the cash-up’s day and times', () => {
  it('writes the day in the language staff chose, the same day whatever the screen’s zone', () => {
    try {
      applyLanguage('fr');
      expect(formatDay('2026-06-01')).toBe('lundi 1 juin 2026');
      expect(formatDay('2026-12-31')).toBe('jeudi 31 décembre 2026');
      expect(formatTimeIn('2026-06-01T13:05:00Z', 'Africa/Lagos')).toBe('14:05');
      applyLanguage('en');
      // English in the browser's own regional format (Node 22 has a navigator saying en-US; else en-GH).
      expect(formatDay('2026-06-01')).toMatch(/^Monday,? (1 June|June 1,) 2026$/);
      expect(formatTimeIn('2026-06-01T13:05:00Z', 'Africa/Accra')).toMatch(/^0?1:05\s?pm$/i);
      expect(formatTimeIn('2026-06-01T13:05:00Z', 'Not/AZone')).toMatch(/:05/);
    } finally {
      applyLanguage('en');
    }
  });
});
