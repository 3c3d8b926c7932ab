/** The finance module as other modules see it: the rows behind the payments and exceptions reports. */
export { paymentsCsvBatches, type PaymentsExport } from './finance-export.service';
export { exceptionsCsv, listExceptionItems } from './finance-exception-items';
export { listFinanceExceptions } from './finance-exceptions.service';
