/**
 * The back office's messages in English and French: one file per feature, listed here once.
 * The catalogue test (test/unit/i18n-catalogs.test.ts) checks both languages carry every id with
 * the same arguments, and that every id a component asks for exists.
 */
import { mergeCatalogs } from '../ui/i18n';
import auth from './features/auth/messages';
import cashDesk from './features/cash-desk/messages';
import cashUp from './features/cash-desk/cash-up.messages';
import common from './features/common/messages';
import home from './features/home/messages';
import overview from './features/overview/messages';
import admin from './features/admin/messages';
import audit from './features/audit/messages';
import finance from './features/finance/messages';
import shell from './layout/messages';
import webhooks from './features/webhooks/messages';
import momoCountries from './features/admin/momo-countries-messages';
import account from './features/auth/account-messages';
import waiting from './layout/waiting.messages';
import reviewKeys from './features/review/shortcuts.messages';
import shortcuts from './features/common/shortcuts.messages';
import exportJob from './features/finance/export-job.messages';
import net from './features/finance/net.messages';
import timeline from './features/finance/timeline.messages';
import revenueLines from './features/finance/revenue-lines.messages';
import copyId from './features/common/copy-id.messages';
import auditWords from './features/audit/audit-words.messages';
import review from './features/review/messages';
import amount from '../ui/amount.messages';

export const backofficeCatalog = mergeCatalogs([shell, common, auth, home, overview, cashDesk, cashUp, admin, finance, audit, webhooks, momoCountries, account, waiting, shortcuts, reviewKeys, exportJob, net, timeline, revenueLines, copyId, auditWords, review, amount]);
