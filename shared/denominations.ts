/**
 * The notes and coins a teller counts at cash-up, per currency, largest first. `value_minor` is
 * one piece's value in the currency's minor units (GHS pesewas, KES cents; XOF has no minor
 * unit). A currency without a table is counted as one `total` line: the amount itself, in minor
 * units. Codes are stable (`note_20000`, `coin_50`): they name the fields of a count.
 */
export interface Denomination {
  code: string;
  kind: 'note' | 'coin' | 'total';
  value_minor: number;
}

const table = (notes: number[], coins: number[]): Denomination[] => [
  ...notes.map((v) => ({ code: `note_${v}`, kind: 'note' as const, value_minor: v })),
  ...coins.map((v) => ({ code: `coin_${v}`, kind: 'coin' as const, value_minor: v })),
];

export const DENOMINATIONS: Readonly<Record<string, readonly Denomination[]>> = {
  // Cedi notes 200 … 1; coins 2 and 1 cedi, 50, 20, 10, 5 and 1 pesewa.
  GHS: table([20000, 10000, 5000, 2000, 1000, 500, 200, 100], [200, 100, 50, 20, 10, 5, 1]),
  // CFA franc (BCEAO): no minor unit.
  XOF: table([10000, 5000, 2000, 1000, 500], [500, 250, 200, 100, 50, 25, 10, 5]),
  // Shilling notes 1000 … 50; coins 20, 10, 5 and 1 shilling.
  KES: table([100000, 50000, 20000, 10000, 5000], [2000, 1000, 500, 100]),
};

const TOTAL_LINE: Denomination = { code: 'total', kind: 'total', value_minor: 1 };

/** The count lines of a currency: its notes and coins, or the single `total` line. */
export function denominationsOf(currency: string): readonly Denomination[] {
  return DENOMINATIONS[currency.toUpperCase()] ?? [TOTAL_LINE];
}

/** Most pieces of one note or coin in a count (a `total` line is an amount, bounded separately). */
export const MAX_PIECES = 1_000_000;

/** The value of a count, or the first code that is not one of the currency's lines. */
export function countValue(currency: string, counts: Readonly<Record<string, number>>): { ok: true; minor: number } | { ok: false; code: string } {
  const lines = denominationsOf(currency);
  let minor = 0;
  for (const [code, n] of Object.entries(counts)) {
    const d = lines.find((l) => l.code === code);
    if (!d) return { ok: false, code };
    minor += d.value_minor * n;
  }
  return { ok: true, minor };
}
