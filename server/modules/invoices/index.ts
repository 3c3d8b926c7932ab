/** The invoices module's public face. For other modules: an invoice's lines. For the app: the merchant API's routes. */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { invoiceLines } from './invoices.repository';

export const invoicesRoutes = lazyPlugin(async () => (await import('./invoices.routes')).invoicesRoutes);
