/**
 * The payments module's public face. For other modules: a session's rails and quote, a slip as
 * shown, bank-transfer confirmation. For the app: the checkout routes, the sweeper's
 * reconciliation and the quote's memory of the Deps.
 */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { findSession, quoteRail } from './payments.repository';
export { loadFresh, notPayable, requireRail, type PaymentsDeps } from './rails';
export { confirmBankTransfer } from './bank-transfer';
export { slipBody } from './slip-body';
export { reconcileStuckAttempts } from './reconcile';
export { createQuoteInputMemory, type QuoteInputMemory } from './quote-inputs';

export const checkoutRoutes = lazyPlugin(async () => (await import('./payments.routes')).checkoutRoutes);
