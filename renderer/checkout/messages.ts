/**
 * The payer pages' messages in English and French. Each screen group has its English in
 * `messages-<group>.ts` and its French beside it in `messages-<group>.fr.ts` (TypeScript refuses
 * a French file that lacks an English id or adds one); a new group is listed in messages-en.ts
 * and messages-fr.ts. The French is split off so that an English page never downloads it: the
 * page loads it on demand (main.tsx).
 *
 * This catalogue, both languages at once, is what the catalogue test reads
 * (test/unit/i18n-catalogs.test.ts): both languages carry every id with the same arguments, and
 * every id a component asks for exists. defineMessages refuses a French table missing an id.
 */
import { defineMessages } from '../ui/i18n';
import { checkoutEnglish } from './messages-en';
import { checkoutFrench } from './messages-fr';

export const checkoutCatalog = defineMessages({ en: checkoutEnglish, fr: checkoutFrench });
