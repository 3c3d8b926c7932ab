/**
 * The payer pages' French, a chunk of its own: loaded before the first render when the payer's
 * language is French, or when they choose French in the language menu (main.tsx).
 */
import bank from './messages-bank.fr';
import card from './messages-card.fr';
import cash from './messages-cash.fr';
import momo from './messages-momo.fr';
import page from './messages-page.fr';

export const checkoutFrench = { ...page, ...momo, ...card, ...bank, ...cash };
