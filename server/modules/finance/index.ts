/** The finance module's public face. For other modules: the rows behind the payments and exceptions reports. For the app: its routes. */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { paymentsCsvBatches, type PaymentsExport } from './finance-export.service';
export { exceptionsCsv, listExceptionItems } from './finance-exception-items';
export { listFinanceExceptions } from './finance-exceptions.service';

export const financeRoutes = lazyPlugin(async () => (await import('./finance.routes')).financeRoutes);
export const financeExceptionRoutes = lazyPlugin(async () => (await import('./finance-exceptions.routes')).financeExceptionRoutes);
