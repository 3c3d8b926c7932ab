import { randomInt } from 'node:crypto';

/**
 * Printed cash-slip references (`PD-XXXX-XXXX`). Tellers type them when a barcode will not
 * scan, so they are drawn from Crockford's base-32 alphabet: no I, L, O or U, and a typed
 * O reads as 0, I or L as 1. 32 symbols, each drawn with an unbiased `randomInt(32)`: 40 bits
 * per reference.
 *
 * References issued before this alphabet (2-9 and A-Z without I and O: no 0 or 1, but L and U)
 * are still found: the lookup key maps L to 1 for them too, and no old reference contained a 1,
 * so old keys stay unique and never collide with each other.
 */
export const SLIP_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PREFIX = 'PD';
const SYMBOLS = 8;

/** A new reference; `draw(n)` returns an integer in [0, n) (the CSPRNG unless a test passes one). */
export function newSlipReference(draw: (n: number) => number = randomInt): string {
  let out = '';
  for (let i = 0; i < SYMBOLS; i++) out += SLIP_ALPHABET[draw(SLIP_ALPHABET.length)];
  return `${PREFIX}-${out.slice(0, 4)}-${out.slice(4)}`;
}

/**
 * The lookup key of a reference as printed or as typed: any case, with or without the `PD`
 * prefix, dashes and spaces; O → 0 and I, L → 1. Null when it cannot be a slip reference, so
 * the caller answers 404 without a query.
 */
export function slipReferenceKey(input: string): string | null {
  let s = input.toUpperCase().replace(/[\s\-_.]/g, '');
  if (s.length === SYMBOLS + PREFIX.length && s.startsWith(PREFIX)) s = s.slice(PREFIX.length);
  if (s.length !== SYMBOLS) return null;
  s = s.replace(/O/g, '0').replace(/[IL]/g, '1');
  return /^[0-9A-Z]+$/.test(s) ? s : null;
}
