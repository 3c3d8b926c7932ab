/** The admin module's public face: the back office's admin routes (no other module uses it). */
import { lazyPlugin } from '../../lib/lazy-plugin';

export const adminRoutes = lazyPlugin(async () => (await import('./admin.routes')).adminRoutes);
