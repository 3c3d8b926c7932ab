/** The invoices module as other modules see it: an invoice's lines. */
export { invoiceLines } from './invoices.repository';
