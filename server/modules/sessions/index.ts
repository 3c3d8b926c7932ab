/** The sessions module's public face: the merchant API's routes (no other module uses it). */
import { lazyPlugin } from '../../lib/lazy-plugin';

export const sessionsRoutes = lazyPlugin(async () => (await import('./sessions.routes')).sessionsRoutes);
