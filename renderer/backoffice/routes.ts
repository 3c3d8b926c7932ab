/**
 * Every back-office page, its path and who may see it. The desktop shell grants the camera to
 * the scan page only (CAMERA_ROUTE in electron/main/permission-guard.ts, kept equal by
 * test/unit/electron-permission-guard.test.ts).
 */
export type StaffRole = 'teller' | 'supervisor' | 'finance' | 'admin';

export interface BackOfficeRoute {
  path: string;
  label: string;
  roles: readonly StaffRole[];
}

export const ROUTES = {
  home: { path: '/backoffice/', label: 'Overview', roles: ['teller', 'supervisor', 'finance', 'admin'] },
  // Tellers only: recording is a teller's call and a supervisor reviews, never records
  // (docs/backoffice.md, "Who sees what").
  tellerScan: { path: '/backoffice/teller/scan', label: 'Cash desk', roles: ['teller'] },
  // The teller balances their drawer; a supervisor signs off the counts tellers signed.
  cashUp: { path: '/backoffice/cash-up', label: 'Cash-up', roles: ['teller', 'supervisor'] },
  review: { path: '/backoffice/review', label: 'Deposit review', roles: ['supervisor'] },
  finance: { path: '/backoffice/finance', label: 'Finance', roles: ['finance', 'admin'] },
  exceptions: { path: '/backoffice/exceptions', label: 'Exceptions', roles: ['finance', 'admin'] },
  webhooks: { path: '/backoffice/webhooks', label: 'Webhooks', roles: ['admin', 'finance'] },
  admin: { path: '/backoffice/admin', label: 'Administration', roles: ['admin'] },
  audit: { path: '/backoffice/audit', label: 'Audit trail', roles: ['admin', 'supervisor'] },
  account: { path: '/backoffice/account', label: 'Change password', roles: ['teller', 'supervisor', 'finance', 'admin'] },
} as const satisfies Record<string, BackOfficeRoute>;

export type RouteName = keyof typeof ROUTES;

/** The route a path belongs to: exact match, or the longest route prefix (sub-pages). */
export function matchRoute(path: string): RouteName | null {
  const normalised = path.length > 1 && path.endsWith('/') && path !== ROUTES.home.path ? path.slice(0, -1) : path;
  let best: RouteName | null = null;
  for (const [name, route] of Object.entries(ROUTES) as [RouteName, BackOfficeRoute][]) {
    if (normalised === route.path) return name;
    if (route.path !== ROUTES.home.path && normalised.startsWith(`${route.path}/`)) {
      if (!best || route.path.length > ROUTES[best].path.length) best = name;
    }
  }
  return best;
}

export function routesFor(role: StaffRole): RouteName[] {
  return (Object.keys(ROUTES) as RouteName[]).filter((name) => (ROUTES[name].roles as readonly StaffRole[]).includes(role));
}
