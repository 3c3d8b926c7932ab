/**
 * A refused amount (amount.ts) as a sentence in the person's language: every amount field shows
 * this, never the parser's own words.
 */
import type { AmountProblem, AmountReading } from './amount';

/** `useT()`'s function, or any that formats a message by id (tests). */
type Translate = (id: string, values: Record<string, string | number>) => string;

function amountProblemText(t: Translate, p: AmountProblem): string {
  switch (p.code) {
    case 'empty':
      return t('amount.empty', { example: p.example });
    case 'not-amount':
      return t('amount.notAmount', { text: p.text, example: p.example });
    case 'unclear': {
      const v = { text: p.text, readAs: p.readAs, typeAs: p.typeAs };
      if (p.advice === 'decimals') return t('amount.unclearDecimals', { ...v, unit: p.unit, digits: p.digits, example: p.example });
      if (p.advice === 'mark') return t('amount.unclearMark', { ...v, decimal: p.decimal, example: p.example });
      return t('amount.unclear', v);
    }
    case 'grouping':
      return t('amount.grouping', { text: p.text, example: p.example });
    case 'decimals':
      return t('amount.decimals', { text: p.text, count: p.count, unit: p.unit, digits: p.digits, example: p.example });
    case 'whole':
      return t('amount.whole', { unit: p.unit, example: p.example });
  }
}

/** The sentence for a refused reading; null for an amount that was read. */
export function amountErrorText(t: Translate, reading: Extract<AmountReading, { ok: false }>): string;
export function amountErrorText(t: Translate, reading: AmountReading | null): string | null;
export function amountErrorText(t: Translate, reading: AmountReading | null): string | null {
  return reading && !reading.ok ? amountProblemText(t, reading.problem) : null;
}
