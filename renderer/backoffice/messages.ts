/**
 * The back office's messages in English and French: one file per feature, listed here once.
 * The catalogue test (test/unit/i18n-catalogs.test.ts) checks both languages carry every id with
 * the same arguments, and that every id a component asks for exists.
 */
import { mergeCatalogs } from '../ui/i18n';
import shell from './layout/messages';
import momoCountries from './features/admin/momo-countries-messages';
import account from './features/auth/account-messages';

export const backofficeCatalog = mergeCatalogs([shell, momoCountries, account]);
