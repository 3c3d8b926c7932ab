/** The payments module as other modules see it: a session's rails and quote, a slip as shown, bank-transfer confirmation. */
export { findSession, quoteRail } from './payments.repository';
export { loadFresh, notPayable, requireRail, type PaymentsDeps } from './rails';
export { confirmBankTransfer } from './bank-transfer';
export { slipBody } from './slip-body';
