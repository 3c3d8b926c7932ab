import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MOMO_COUNTRIES, MOMO_SANDBOX_SCENARIOS, momoCountriesFor } from '../../shared/countries';
import { parseMomoPhone } from '../../server/lib/phone';

describe('the Mobile Money country table', () => {
  it('maps each currency to its countries: GHS Ghana, XOF Côte d’Ivoire and Senegal, KES Kenya, any other none', () => {
    expect(momoCountriesFor('GHS').map((c) => c.code)).toEqual(['GH']);
    expect(momoCountriesFor('XOF').map((c) => c.code)).toEqual(['CI', 'SN']);
    expect(momoCountriesFor('KES').map((c) => c.code)).toEqual(['KE']);
    expect(momoCountriesFor('USD')).toEqual([]);
  });

  it('has sandbox numbers and examples that are valid mobile numbers of their country (and of no other country of its currency), stored in E.164', () => {
    for (const c of MOMO_COUNTRIES) {
      for (const n of [c.phoneExample, ...Object.values(c.sandboxNumbers)]) {
        const read = parseMomoPhone(n, [c]);
        expect(read, `${c.code} ${n}`).not.toBeNull();
        expect(read!.e164).toMatch(new RegExp(`^\\+${c.dialCode}\\d+$`));
        for (const other of MOMO_COUNTRIES.filter((o) => o.code !== c.code && o.currency === c.currency)) expect(parseMomoPhone(n, [other]), `${n} in ${other.code}`).toBeNull();
      }
    }
    // Any spelling is the same number.
    for (const spelling of ['0241234567', '233241234567', '+233 24 123 4567', '024-123-4567']) expect(parseMomoPhone(spelling, momoCountriesFor('GHS'))?.e164).toBe('+233241234567');
    expect(parseMomoPhone('77 123 45 67', momoCountriesFor('XOF'))?.country.code).toBe('SN');
    for (const bad of ['02412345', '44241234567', '2332412345678', 'O24I234567', '0301234567']) expect(parseMomoPhone(bad, momoCountriesFor('GHS')), bad).toBeNull();
  });

  it('is printed in docs/sandbox.md: every country, network and test number', () => {
    const doc = readFileSync('docs/sandbox.md', 'utf8');
    for (const c of MOMO_COUNTRIES) {
      expect(doc).toContain(c.name);
      for (const n of c.networks) expect(doc).toContain(`\`${n.value}\` ${n.label}`);
      expect(doc).toContain(`\`${c.sandboxNumbers.approves}\``);
      for (const s of MOMO_SANDBOX_SCENARIOS) expect(doc).toContain(`\`${c.sandboxNumbers[s]}\``);
    }
  });
});
