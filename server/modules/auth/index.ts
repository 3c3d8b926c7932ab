/**
 * The auth module's public face. For other modules: staff roles and sign-in (the guards are
 * server/http/staff-access.ts, re-exported here), merchant API keys, creating staff. For the app
 * (server/app.ts, routes.ts, compose.ts, main.ts, the CLI): the authenticators, the key hook, the
 * sign-in and first-run routes, the API-key memory of the Deps.
 */
import { lazyPlugin } from '../../lib/lazy-plugin';

export { allow, requireStaff, staffErrors, type StaffContext } from '../../http/staff-access';
export { merchantErrors, merchantOf, merchantSecurity, requireMerchantKey } from './merchant-api';
export { authenticateMerchant, createApiKeyMemory, type ApiKeyMemory } from './merchant-auth';
export { authenticateStaff } from './staff-auth';
export { STAFF_COOKIE } from './staff-cookie';
export { createStaff } from './staff.service';
export { adminChangeRole, adminResetPassword } from './staff-password';
// The first run's routes share their file with the setup link the app creates at start: loaded with it.
export { createFirstRun, firstRunRoutes, SETUP_LINK_MINUTES, SETUP_ROUTE, type FirstRun } from './first-run';

export const staffAuthRoutes = lazyPlugin(async () => (await import('./staff.routes')).staffAuthRoutes);
