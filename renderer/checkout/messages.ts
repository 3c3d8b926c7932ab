/**
 * The payer pages' messages in English and French: one file per screen group, listed here once.
 * The catalogue test (test/unit/i18n-catalogs.test.ts) checks both languages carry every id with
 * the same arguments, and that every id a component asks for exists.
 */
import { mergeCatalogs } from '../ui/i18n';
import bank from './messages-bank';
import card from './messages-card';
import cash from './messages-cash';
import momo from './messages-momo';
import page from './messages-page';

export const checkoutCatalog = mergeCatalogs([page, momo, card, bank, cash]);
