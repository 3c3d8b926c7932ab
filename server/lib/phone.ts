import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import { momoCountriesFor, type MomoCountry } from '../../shared/countries';

/**
 * A payer's Mobile Money number, read with libphonenumber-js's mobile metadata (server side only:
 * the payer page never loads it). Valid only as a mobile number of one of the session's
 * countries; stored in E.164 (`+233241234567`), shown by its last four digits.
 */
export interface MomoPhone {
  e164: string;
  country: MomoCountry;
}

/**
 * `input` as a mobile number of `country` when given, else of the first of `countries` it is
 * valid in (so a national number of any of them needs no country). Null when it is none of them.
 */
export function parseMomoPhone(input: string, countries: readonly MomoCountry[]): MomoPhone | null {
  if (input.length > 40) return null;
  for (const country of countries) {
    const parsed = parsePhoneNumberFromString(input, country.code);
    if (parsed?.isValid() && parsed.country === country.code) return { e164: parsed.number, country };
  }
  return null;
}

/** What the phone field's error says: the country's own format. */
export function phoneFormatMessage(countries: readonly MomoCountry[]): string {
  return `must be ${countries.map((c) => `a ${c.name} number: ${c.phoneFormat}`).join('; or ')}`;
}

export { momoCountriesFor };
