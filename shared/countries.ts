/**
 * The Mobile Money countries Paydesk serves: each one's currency, phone format, networks (the
 * `operator` codes of the checkout API, with their labels) and sandbox test numbers. A session's
 * currency and its integration decide the countries its payer picks from (`servedMomoCountries`). Plain data, no phone
 * library: the payer page reads it on its first view; numbers are parsed and validated on the
 * server (server/lib/phone.ts, libphonenumber-js). docs/sandbox.md prints this table.
 */

export const MOMO_COUNTRY_CODES = ['GH', 'CI', 'SN', 'KE'] as const;
export type MomoCountryCode = (typeof MOMO_COUNTRY_CODES)[number];

/** Sandbox behaviours a test number triggers (server/providers/sandbox-momo.ts); any other valid number approves with 123456. */
export const MOMO_SANDBOX_SCENARIOS = ['payer_declined', 'insufficient_funds', 'prompt_expired', 'stuck', 'unavailable', 'wallet_rejected'] as const;
export type MomoSandboxScenario = (typeof MOMO_SANDBOX_SCENARIOS)[number];

export interface MomoCountry {
  code: MomoCountryCode;
  name: string;
  currency: string;
  /** The international dialling code, without the +. */
  dialCode: string;
  /** How a number is written there, as the error and the hint say it. */
  phoneFormat: string;
  /** A number in the national format, for the placeholder. */
  phoneExample: string;
  networks: readonly { value: string; label: string }[];
  /** National format; the sandbox treats the same number in any spelling (0…, +…, the dialling code) alike. */
  sandboxNumbers: Readonly<Record<MomoSandboxScenario | 'approves', string>>;
}

export const MOMO_COUNTRIES: readonly MomoCountry[] = [
  {
    code: 'GH',
    name: 'Ghana',
    currency: 'GHS',
    dialCode: '233',
    phoneFormat: '0XXXXXXXXX or 233XXXXXXXXX',
    phoneExample: '024 123 4567',
    networks: [
      { value: 'mtn', label: 'MTN MoMo' },
      { value: 'telecel', label: 'Telecel Cash' },
      { value: 'airteltigo', label: 'AirtelTigo Money' },
    ],
    sandboxNumbers: {
      approves: '024 123 4567',
      payer_declined: '024 000 0001',
      insufficient_funds: '024 000 0002',
      prompt_expired: '024 000 0003',
      stuck: '024 000 0004',
      unavailable: '024 000 0005',
      wallet_rejected: '024 000 0006',
    },
  },
  {
    code: 'CI',
    name: "Côte d'Ivoire",
    currency: 'XOF',
    dialCode: '225',
    phoneFormat: '0X XX XX XX XX (10 digits) or 225XXXXXXXXXX',
    phoneExample: '07 01 23 45 67',
    networks: [
      { value: 'orange', label: 'Orange Money' },
      { value: 'mtn', label: 'MTN MoMo' },
      { value: 'moov', label: 'Moov Money' },
      { value: 'wave', label: 'Wave' },
    ],
    sandboxNumbers: {
      approves: '07 01 23 45 67',
      payer_declined: '07 00 00 00 01',
      insufficient_funds: '07 00 00 00 02',
      prompt_expired: '07 00 00 00 03',
      stuck: '07 00 00 00 04',
      unavailable: '07 00 00 00 05',
      wallet_rejected: '07 00 00 00 06',
    },
  },
  {
    code: 'SN',
    name: 'Senegal',
    currency: 'XOF',
    dialCode: '221',
    phoneFormat: '7X XXX XX XX (9 digits) or 221XXXXXXXXX',
    phoneExample: '77 123 45 67',
    networks: [
      { value: 'orange', label: 'Orange Money' },
      { value: 'wave', label: 'Wave' },
      { value: 'free', label: 'Free Money' },
    ],
    sandboxNumbers: {
      approves: '77 123 45 67',
      payer_declined: '77 000 00 01',
      insufficient_funds: '77 000 00 02',
      prompt_expired: '77 000 00 03',
      stuck: '77 000 00 04',
      unavailable: '77 000 00 05',
      wallet_rejected: '77 000 00 06',
    },
  },
  {
    code: 'KE',
    name: 'Kenya',
    currency: 'KES',
    dialCode: '254',
    phoneFormat: '07XX XXXXXX or 01XX XXXXXX (10 digits) or 254XXXXXXXXX',
    phoneExample: '0712 345678',
    networks: [
      { value: 'mpesa', label: 'M-Pesa' },
      { value: 'airtel', label: 'Airtel Money' },
    ],
    sandboxNumbers: {
      approves: '0712 345678',
      payer_declined: '0712 000001',
      insufficient_funds: '0712 000002',
      prompt_expired: '0712 000003',
      stuck: '0712 000004',
      unavailable: '0712 000005',
      wallet_rejected: '0712 000006',
    },
  },
];

/** Every network code of every country, the default market's first (the `operator` values the API takes). */
export const MOMO_NETWORKS: readonly string[] = [...new Set(MOMO_COUNTRIES.flatMap((c) => c.networks.map((n) => n.value)))];

/** The countries whose payers may pay a session in this currency by Mobile Money (none for a currency no country uses). */
export function momoCountriesFor(currency: string): MomoCountry[] {
  return MOMO_COUNTRIES.filter((c) => c.currency === currency);
}

/**
 * The countries whose payers may pay a session in `currency` by Mobile Money through an
 * integration serving `served` (its Mobile Money countries setting): those of the currency the
 * integration serves; `null`, the default, serves every country of the currency.
 */
export function servedMomoCountries(currency: string, served: readonly string[] | null): MomoCountry[] {
  const countries = momoCountriesFor(currency);
  return served === null ? countries : countries.filter((c) => served.includes(c.code));
}

export function momoCountry(code: string): MomoCountry | undefined {
  return MOMO_COUNTRIES.find((c) => c.code === code);
}

/** "MTN MoMo" for a network code; the code itself when unknown. */
export function networkLabel(code: string): string {
  for (const c of MOMO_COUNTRIES) for (const n of c.networks) if (n.value === code) return n.label;
  return code;
}
