import { describe, expect, it } from 'vitest';
import { createIntl } from 'react-intl';
import { backofficeCatalog } from '../../renderer/backoffice/messages';
import { amountPlaceholder, parseAmount, parsePercent } from '../../renderer/ui/amount';
import { amountErrorText } from '../../renderer/ui/amount-text';

const read = (text: string, locale: string, currency = 'GHS') => parseAmount(text, currency, locale);

/** What the field shows for an entry: the refusal in the language the locale speaks, as the back office words it. */
function shown(reading: ReturnType<typeof parseAmount>, locale: string): string | null {
  const intl = createIntl({ locale, messages: locale.startsWith('fr') ? backofficeCatalog.fr : backofficeCatalog.en });
  // French puts a no-break space before “:” and “;” and inside « »: read here as a space.
  return amountErrorText((id, values) => intl.formatMessage({ id }, values), reading)?.replace(/\u00a0/g, ' ') ?? null;
}
const says = (text: string, locale: string, currency = 'GHS') => shown(read(text, locale, currency), locale);

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
    expect(read('1.234', 'fr-FR')).toMatchObject({ ok: false, problem: { code: 'unclear', advice: 'mark' } });
    expect(says('1.234', 'fr-GH')).toMatch(/^« 1\.234 » est ambigu : il serait lu 1\s234,00\sGHS\. Saisissez 1\s234,00 si c’est bien ce montant, ou écrivez les décimales avec « , », par exemple 1\s234,50\.$/u);
    expect(says('1.234', 'en-GH')).toMatch(/^“1\.234” is unclear: it would be read as GHS\s1,234\.00\. Type 1,234\.00 if you mean that; GHS amounts have 2 decimals, like 1,234\.50\.$/u);
    expect(says('1,234', 'fr-FR')).toMatch(/^« 1,234 » est ambigu : il serait lu 1\s234,00\sGHS\. Saisissez 1\s234,00 si c’est bien ce montant ; les montants en GHS ont 2 décimales, par exemple 1\s234,50\.$/u);
    expect(says('1,500', 'fr-FR', 'XOF')).toMatch(/^« 1,500 » est ambigu : il serait lu 1\s500\s(F\sCFA|XOF)\. Saisissez 1\s500 si c’est bien ce montant\.$/u);
    expect(says('1,500', 'en-GH', 'XOF')).toBe(null); // English groups with commas: 1 500
    expect(says('1.500', 'en-GH', 'XOF')).toMatch(/^“1\.500” is unclear: it would be read as (XOF|F\s?CFA)\s?1,500\. Type 1,500 if you mean that\.$/u);
  });

  it('refuses too many decimals, badly grouped thousands and anything that is not an amount: never rescaled', () => {
    expect(read('12.505', 'en-GH')).toMatchObject({ ok: false }); // unclear: 12,505 or 12.505
    expect(says('12,5055', 'en-GH')).toBe('“12,5055” has 4 decimals; GHS amounts have 2. Type it like 1,234.50.');
    expect(says('12,5055', 'fr-FR')).toBe('« 12,5055 » a 4 décimales ; les montants en GHS en ont 2. Saisissez-le sous la forme 1\u202f234,50.');
    expect(says('12,5', 'fr-FR', 'XOF')).toBe('Les montants en XOF n’ont pas de décimales : saisissez un nombre entier, par exemple 1\u202f234.');
    expect(says('12.5', 'en-GH', 'XOF')).toBe('XOF amounts have no decimals: type a whole number, like 1,234.');
    expect(says('1,23,456', 'en-GH')).toMatch(/do not group thousands by three/);
    expect(says('1 23 456', 'fr-FR')).toMatch(/ne regroupent pas les milliers par trois/);
    for (const bad of ['abc', '12a', '-5', '1e5', '1..2', '12.', '1.2.3,4,5']) expect(read(bad, 'en-GH').ok).toBe(false);
    expect(says('lots', 'en-GH')).toBe('“lots” is not an amount: type it like 1,234.50.');
    expect(says('lots', 'fr-FR')).toBe('« lots » n’est pas un montant : saisissez-le sous la forme 1\u202f234,50.');
    expect(says('  ', 'en-GH')).toBe('Enter an amount, like 1,234.50.');
    expect(says('  ', 'fr-FR')).toBe('Saisissez un montant, par exemple 1\u202f234,50.');
  });

  it('words a refused percentage as a percentage, in both languages', () => {
    expect(shown(parsePercent('1,955', 'en-GH'), 'en-GH')).toBe(null); // 1 955 %: read, the form checks the range
    expect(shown(parsePercent('1.955', 'en-GH'), 'en-GH')).toMatch(/; percentages have 2 decimals, like 1\.95\.$/);
    expect(shown(parsePercent('1,955', 'fr-FR'), 'fr-FR')).toMatch(/; les pourcentages ont 2 décimales, par exemple 1,95\.$/);
    expect(shown(parsePercent('1,9555', 'fr-FR'), 'fr-FR')).toBe('« 1,9555 » a 4 décimales ; les pourcentages en ont 2. Saisissez-le sous la forme 1,95.');
  });

  it('hints in the locale’s own format and the currency’s own decimals', () => {
    expect(amountPlaceholder('GHS', 'fr-FR')).toBe('0,00');
    expect(amountPlaceholder('GHS', 'en-GH')).toBe('0.00');
    expect(amountPlaceholder('XOF', 'fr-FR')).toBe('0');
    expect(amountPlaceholder('KES', 'en-KE')).toBe('0.00');
  });
});
