/**
 * The payer pages' English: every screen group's messages in one table, in the page's first
 * code (a payer reading English downloads no French). A group's French goes in messages-fr.ts.
 */
import bank from './messages-bank';
import card from './messages-card';
import cash from './messages-cash';
import momo from './messages-momo';
import page from './messages-page';

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/** The groups' tables in one, keeping every id in the type (so the French can be checked against it). */
function merge<const P extends readonly Record<string, string>[]>(...parts: P): UnionToIntersection<P[number]> {
  const merged: Record<string, string> = {};
  for (const part of parts) {
    for (const id of Object.keys(part)) {
      if (id in merged) throw new Error(`message id ${id} is defined twice`);
    }
    Object.assign(merged, part);
  }
  return merged as UnionToIntersection<P[number]>;
}

export const checkoutEnglish = merge(page, momo, card, bank, cash);
