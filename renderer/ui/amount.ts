/**
 * Amounts as people type them, in their locale: one parser for every amount field (cash desk,
 * fee rules, sandbox tools, filters). The locale's own reading is @internationalized/number's
 * NumberParser (separators, currency codes and symbols, other numbering systems); around it, the
 * shape of what was typed decides which mark is the decimal one, so `196,53` in French and
 * `196.53` in English read the same, and an entry that could mean two amounts (`1.234` for a
 * two-decimal currency) is refused with a sentence saying how it would be read: never rescaled.
 * The result is integer minor units with the currency's own decimals (ISO 4217, through Intl).
 * The server still checks the amount exactly.
 */
import { NumberParser } from '@internationalized/number';
import { currencyDigits, formatMoney, minorToDecimal } from '../../shared/money';

/**
 * Why an entry was refused, with what a sentence about it needs, already written in the locale
 * (amount-text.ts turns it into the person's language). `unit` is a currency code, or `percent`.
 */
export type AmountProblem =
  | { code: 'empty'; example: string }
  | { code: 'not-amount'; text: string; example: string }
  | { code: 'unclear'; text: string; readAs: string; typeAs: string; advice: 'none' | 'decimals' | 'mark'; unit: string; digits: number; decimal: string; example: string }
  | { code: 'grouping'; text: string; example: string }
  | { code: 'decimals'; text: string; count: number; unit: string; digits: number; example: string }
  | { code: 'whole'; unit: string; example: string };

export type AmountReading = { ok: true; minor: number } | { ok: false; problem: AmountProblem };

interface Symbols {
  decimal: string;
  /** The grouping mark, with any space (NBSP, narrow NBSP) reported as a plain space. */
  group: string;
}

const symbolsCache = new Map<string, Symbols>();
function symbolsOf(locale: string): Symbols {
  let s = symbolsCache.get(locale);
  if (!s) {
    const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(12345.6);
    const group = parts.find((p) => p.type === 'group')?.value ?? ',';
    s = { decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.', group: /\s/.test(group) ? ' ' : group };
    symbolsCache.set(locale, s);
  }
  return s;
}

/** The number in the locale's own format with the currency's decimals: `1 234,50` (fr), `1,234.50` (en). */
export function formatAmountInput(minor: number, currency: string, locale: string): string {
  const digits = currencyDigits(currency);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(minorToDecimal(minor, currency) as `${number}`);
}

/** The field's hint: zero in the locale's own format (`0,00` in French, `0.00` in English, `0` for XOF). */
export function amountPlaceholder(currency: string, locale: string): string {
  return formatAmountInput(0, currency, locale);
}

/** An example amount for messages: 1 234,50 (fr, GHS), 1,234.50 (en, GHS), 1 234 (XOF). */
function amountExample(currency: string, locale: string): string {
  const digits = currencyDigits(currency);
  return formatAmountInput(1234 * 10 ** digits + (digits ? 5 * 10 ** (digits - 1) : 0), currency, locale);
}

const currencyMarks = new Map<string, string[]>();
/** The ways a currency is written beside a number: its code, symbol and narrow symbol (GHS, GH₵, ₵). */
function currencyMarksOf(currency: string, locale: string): string[] {
  const key = `${locale}\u0000${currency}`;
  let marks = currencyMarks.get(key);
  if (!marks) {
    const of = (display: 'symbol' | 'narrowSymbol') => {
      try {
        return new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: display }).formatToParts(1).find((p) => p.type === 'currency')?.value;
      } catch {
        return undefined;
      }
    };
    marks = [...new Set([currency, of('symbol'), of('narrowSymbol')].filter((m): m is string => !!m))].sort((a, b) => b.length - a.length);
    currencyMarks.set(key, marks);
  }
  return marks;
}

const parsers = new Map<string, NumberParser>();
function parserFor(locale: string, currency: string): NumberParser {
  const key = `${locale}\u0000${currency}`;
  let p = parsers.get(key);
  if (!p) {
    p = new NumberParser(locale, { style: 'currency', currency, currencyDisplay: 'code' });
    parsers.set(key, p);
  }
  return p;
}

/** A locale whose decimal mark is `mark`: the typed text is read by NumberParser in it. */
function localeWithDecimal(mark: string, locale: string): string {
  if (symbolsOf(locale).decimal === mark) return locale;
  return mark === ',' ? 'de-DE' : 'en-US';
}

const GROUP_MARKS = /[\s\u00a0\u202f'’]/g;

/** Well-formed grouping: 1 to 3 digits, then groups of exactly 3 (when there is any grouping at all). */
function groupedWell(integer: string, marks: RegExp): boolean {
  const groups = integer.split(marks);
  if (groups.length === 1) return /^\d+$/.test(integer);
  return /^\d{1,3}$/.test(groups[0]!) && groups.slice(1).every((g) => /^\d{3}$/.test(g));
}

/** What a reading needs to know of the unit: its decimals, how it is written beside a number, how it shows. */
interface Unit {
  digits: number;
  /** Written before or after the number and dropped: a currency's code and symbols, or %. */
  marks: string[];
  /** The currency code, or `percent`. */
  unit: string;
  /** An example in the locale's format, for messages. */
  example: string;
  /** A value (in units of 10^-digits) as the person reads it: "GHS 1,234.00". */
  show: (scaled: number) => string;
  /** The same, as they would type it: "1,234.00". */
  typed: (scaled: number) => string;
  /** The locale's own lenient reading (NumberParser), to tell a badly grouped number from text. */
  lenient: (text: string) => number;
}

/**
 * `text` → integer minor units of `currency`, read in `locale`, or a refusal that says why (and,
 * for an entry that could mean two amounts, how it would be read): see amount-text.ts.
 */
export function parseAmount(text: string, currency: string, locale: string): AmountReading {
  return readNumber(text, locale, {
    digits: currencyDigits(currency),
    marks: currencyMarksOf(currency, locale),
    unit: currency,
    example: amountExample(currency, locale),
    show: (minor) => formatMoney(minor, currency, locale),
    typed: (minor) => formatAmountInput(minor, currency, locale),
    lenient: (t) => parserFor(locale, currency).parse(t),
  });
}

/** A percentage typed in `locale` ("1,95" in French, "1.95 %") → basis points (hundredths of a percent). */
export function parsePercent(text: string, locale: string): AmountReading {
  const fmt = (bps: number) => new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(bps / 100);
  return readNumber(text, locale, {
    digits: 2,
    marks: ['%'],
    unit: 'percent',
    example: fmt(195),
    show: (bps) => `${fmt(bps)} %`,
    typed: fmt,
    lenient: (t) => new NumberParser(locale).parse(t),
  });
}

function readNumber(text: string, locale: string, unit: Unit): AmountReading {
  const trimmed = text.trim();
  const { digits, example } = unit;
  const refuse = (problem: AmountProblem): AmountReading => ({ ok: false, problem });
  const notAnAmount = refuse({ code: 'not-amount', text: trimmed, example });
  if (!trimmed) return refuse({ code: 'empty', example });

  // The number itself, without the currency (its code or symbol, before or after).
  let bare = trimmed;
  for (const m of unit.marks) {
    const upper = bare.toUpperCase();
    if (upper.startsWith(m.toUpperCase())) bare = bare.slice(m.length).trim();
    else if (upper.endsWith(m.toUpperCase())) bare = bare.slice(0, -m.length).trim();
  }
  const s = /^[.,]\d/.test(bare) ? `0${bare}` : bare;
  if (!/^\d[\d.,\s\u00a0\u202f'’]*$/.test(s) || /[.,]$/.test(s)) return notAnAmount;

  const { decimal, group } = symbolsOf(locale);
  const dots = s.split('.').length - 1;
  const commas = s.split(',').length - 1;
  let mark: string | null = null; // the decimal mark as typed
  let grouping: string | null = null; // the grouping mark as typed, besides spaces
  if (dots && commas) {
    mark = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    grouping = mark === '.' ? ',' : '.';
    if ((mark === '.' ? dots : commas) > 1 || s.lastIndexOf(grouping) > s.lastIndexOf(mark)) return notAnAmount;
  } else if (dots + commas > 1) {
    grouping = dots ? '.' : ',';
  } else if (dots + commas === 1) {
    const one = dots ? '.' : ',';
    const after = s.length - s.indexOf(one) - 1;
    if (after !== 3) mark = one;
    else if (one === group && one !== decimal) grouping = one;
    else if (one === decimal && digits >= 3) mark = one;
    else {
      // `1.234` or `1,234` where that mark is not this locale's grouping: 1 234 or 1.234?
      const asWhole = Number(s.replace(/[^\d]/g, '')) * 10 ** digits;
      return refuse({
        code: 'unclear',
        text: trimmed,
        readAs: unit.show(asWhole),
        typeAs: unit.typed(asWhole),
        advice: !digits ? 'none' : one === decimal ? 'decimals' : 'mark',
        unit: unit.unit,
        digits,
        decimal,
        example,
      });
    }
  }

  const [integerPart, fraction = ''] = mark ? s.split(mark) : [s];
  const marks = grouping ? new RegExp(`[\\s\\u00a0\\u202f'’${grouping === '.' ? '\\.' : ','}]`) : GROUP_MARKS;
  if (!groupedWell(integerPart!, new RegExp(marks.source, 'g'))) {
    const lenient = unit.lenient(trimmed);
    return Number.isFinite(lenient) ? refuse({ code: 'grouping', text: trimmed, example }) : notAnAmount;
  }
  if (fraction.length > digits) {
    return refuse(
      digits
        ? { code: 'decimals', text: trimmed, count: fraction.length, unit: unit.unit, digits, example }
        : { code: 'whole', unit: unit.unit, example },
    );
  }

  // The locale's reading, by NumberParser, in a locale whose decimal mark is the one typed.
  const readIn = localeWithDecimal(mark ?? decimal, locale);
  const canonical = `${integerPart!.replace(/\D/g, '')}${fraction ? `${symbolsOf(readIn).decimal}${fraction}` : ''}`;
  const value = new NumberParser(readIn, { maximumFractionDigits: Math.max(digits, 1) }).parse(canonical);
  if (!Number.isFinite(value)) return notAnAmount;
  // Exact minor units from the digits (a float is only the parser's check).
  const minor = Number(`${integerPart!.replace(/\D/g, '')}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor) || Math.abs(minor / 10 ** digits - value) > 10 ** -digits) return notAnAmount;
  return { ok: true, minor };
}
