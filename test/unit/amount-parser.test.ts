import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { amountPlaceholder, parseAmount, parsePercent, type AmountReading } from '../../renderer/ui/amount';
import { backofficeCatalog } from '../../renderer/backoffice/messages';

const read = (text: string, locale: string, currency = 'GHS') => parseAmount(text, currency, locale);

/** The refusal as a screen says it in `language` (the back office's catalogue), or null when the entry was read. */
function said(reading: AmountReading, language: 'en' | 'fr' = 'en'): string | null {
  if (reading.ok) return null;
  return String(new IntlMessageFormat(backofficeCatalog[language][reading.problem.id]!, language).format(reading.problem.values));
}

describe('the amount parser', () => {
  it('reads the five spellings in the locales that write them', () => {
    expect(read('196,53', 'fr-FR')).toEqual({ ok: true, minor: 19_653 });
    expect(read('196.53', 'en-GH')).toEqual({ ok: true, minor: 19_653 });
    expect(read('1 234,50', 'fr-FR')).toEqual({ ok: true, minor: 123_450 });
    expect(read('1\u202f234,50', 'fr-FR')).toEqual({ ok: true, minor: 123_450 }); // as French formatting writes it
    expect(read('1,234.50', 'en-GH')).toEqual({ ok: true, minor: 123_450 });
    expect(read('1.234,50', 'de-DE')).toEqual({ ok: true, minor: 123_450 });
  });

  it('reads a decimal mark that cannot be a grouping one whatever the locale, and both marks by their order', () => {
    expect(read('196.53', 'fr-FR')).toEqual({ ok: true, minor: 19_653 });
    expect(read('12,50', 'en-GH')).toEqual({ ok: true, minor: 1_250 }); // never 1 250.00
    expect(read('1.234,50', 'en-GH')).toEqual({ ok: true, minor: 123_450 });
    expect(read('1,234.50', 'fr-FR')).toEqual({ ok: true, minor: 123_450 });
    expect(read('1,234', 'en-GH')).toEqual({ ok: true, minor: 123_400 }); // English groups with commas
    expect(read('1.234', 'de-DE')).toEqual({ ok: true, minor: 123_400 }); // German groups with dots
    expect(read('1,234,567.5', 'en-GH')).toEqual({ ok: true, minor: 123_456_750 });
    expect(read('GHS 196.53', 'en-GH')).toEqual({ ok: true, minor: 19_653 });
    expect(read('196,53 GHS', 'fr-FR')).toEqual({ ok: true, minor: 19_653 });
    expect(read('1 234 567', 'fr-FR', 'XOF')).toEqual({ ok: true, minor: 1_234_567 });
    expect(read('250000', 'fr-FR', 'XOF')).toEqual({ ok: true, minor: 250_000 });
    expect(read('1.234', 'en-GH', 'BHD')).toEqual({ ok: true, minor: 1_234 }); // three decimals
  });

  it('refuses an entry that could mean two amounts, saying how it would be read', () => {
    const fr = read('1.234', 'fr-FR');
    expect(fr.ok).toBe(false);
    expect(said(fr)).toMatch(/^“1\.234” is unclear: it would be read as 1\s234,00\sGHS\. Type 1\s234,00 if you mean that, or write the decimals with “,”, like 1\s234,50\.$/u);
    // A French screen says it in French.
    expect(said(fr, 'fr')).toMatch(/^« 1\.234 » est ambigu : il serait lu 1\s234,00\sGHS\. Saisissez 1\s234,00 si c’est bien ce montant, ou écrivez les décimales avec « , », par exemple 1\s234,50\.$/u);
    const en = read('1.234', 'en-GH');
    expect(en.ok).toBe(false);
    expect(said(en)).toMatch(/^“1\.234” is unclear: it would be read as GHS\s1,234\.00\. Type 1,234\.00 if you mean that; GHS amounts have 2 decimals, like 1,234\.50\.$/u);
    expect(said(en, 'fr')).toMatch(/; les montants en GHS ont 2 décimales, par exemple 1,234\.50\.$/u);
    const fr2 = read('1,234', 'fr-FR');
    expect(fr2.ok).toBe(false);
    expect(said(fr2)).toMatch(/would be read as 1\s234,00\sGHS/u);
    const xof = read('1,500', 'fr-FR', 'XOF');
    expect(xof.ok).toBe(false);
    expect(said(xof)).toMatch(/^“1,500” is unclear: it would be read as 1\s500\sXOF\. Type 1\s500 if you mean that\.$/u);
    expect(said(xof, 'fr')).toMatch(/^« 1,500 » est ambigu : il serait lu 1\s500\sXOF\. Saisissez 1\s500 si c’est bien ce montant\.$/u);
  });

  it('refuses too many decimals, badly grouped thousands and anything that is not an amount: never rescaled', () => {
    expect(read('12.505', 'en-GH')).toMatchObject({ ok: false }); // unclear: 12,505 or 12.505
    expect(said(read('12,5055', 'en-GH'))).toBe('“12,5055” has 4 decimals; GHS amounts have 2. Type it like 1,234.50.');
    expect(said(read('12,5055', 'fr-FR'), 'fr')).toBe('« 12,5055 » a 4 décimales ; les montants en GHS en ont 2. Saisissez-le sous la forme 1\u202f234,50.');
    expect(said(read('12,5', 'fr-FR', 'XOF'))).toBe('XOF amounts have no decimals: type a whole number, like 1\u202f234.');
    expect(said(read('12,5', 'fr-FR', 'XOF'), 'fr')).toBe('Les montants en XOF n’ont pas de décimales : saisissez un nombre entier, par exemple 1\u202f234.');
    expect(said(read('1,23,456', 'en-GH'))).toMatch(/do not group thousands by three/);
    for (const bad of ['abc', '12a', '-5', '1e5', '1..2', '12.', '1.2.3,4,5']) expect(read(bad, 'en-GH').ok).toBe(false);
    expect(said(read('abc', 'en-GH'))).toBe('“abc” is not an amount: type it like 1,234.50.');
    expect(said(read('  ', 'en-GH'))).toBe('Enter an amount, like 1,234.50.');
    expect(said(read('  ', 'fr-FR'), 'fr')).toBe('Saisissez un montant, par exemple 1\u202f234,50.');
  });

  it('refuses a percentage with too many decimals in the person’s language', () => {
    expect(said(parsePercent('1,955', 'en-GH'))).toBeNull(); // English groups with commas: 1955
    expect(said(parsePercent('1.9555', 'en-GH'))).toBe('“1.9555” has 4 decimals; percentages have 2. Type it like 1.95.');
    expect(said(parsePercent('1,9555', 'fr-FR'), 'fr')).toBe('« 1,9555 » a 4 décimales ; les pourcentages en ont 2. Saisissez-le sous la forme 1,95.');
  });

  it('hints in the locale’s own format and the currency’s own decimals', () => {
    expect(amountPlaceholder('GHS', 'fr-FR')).toBe('0,00');
    expect(amountPlaceholder('GHS', 'en-GH')).toBe('0.00');
    expect(amountPlaceholder('XOF', 'fr-FR')).toBe('0');
    expect(amountPlaceholder('KES', 'en-KE')).toBe('0.00');
  });
});
