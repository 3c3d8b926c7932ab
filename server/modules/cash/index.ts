/** The cash module's public face: its routes, the cash desk's (back office) and the slip's (checkout scope). */
import { lazyPlugin } from '../../lib/lazy-plugin';

export const cashDeskRoutes = lazyPlugin(async () => (await import('./cash.routes')).cashDeskRoutes);
export const cashSlipRoutes = lazyPlugin(async () => (await import('./cash.routes')).cashSlipRoutes);
