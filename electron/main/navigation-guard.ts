import type { WebContents } from 'electron';
import { isSafeExternalUrl, sameOrigin } from './url-policy';

export type NavigationDecision = 'allow' | 'open-external' | 'deny';

/**
 * Pages that belong in the desktop window: the back office and the root that redirects to it.
 * Other pages of the same server (a checkout_url, /docs) are for a browser: a payer's page
 * inside the staff window would be confusing and would run with the window's permissions.
 */
export function isBackOfficeUrl(raw: string, appOrigin: string): boolean {
  const url = sameOrigin(raw, appOrigin);
  if (!url) return false;
  return url.pathname === '/' || url.pathname === '/backoffice' || url.pathname.startsWith('/backoffice/');
}

/** What the window does when its page navigates to `target`. */
export function decideNavigation(target: string, appOrigin: string): NavigationDecision {
  if (isBackOfficeUrl(target, appOrigin)) return 'allow';
  return isSafeExternalUrl(target) ? 'open-external' : 'deny';
}

/** window.open / target=_blank never creates a window: vetted links go to the system browser. */
export function decideWindowOpen(target: string): Exclude<NavigationDecision, 'allow'> {
  return isSafeExternalUrl(target) ? 'open-external' : 'deny';
}

type GuardedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/**
 * Keeps a window's web contents on the back office: in-window navigation elsewhere is stopped
 * (and vetted http(s) links open in the browser), new windows are refused, redirects may not
 * leave the app's origin, and <webview> is never attached.
 */
export function installNavigationGuard(contents: GuardedContents, appOrigin: string, openInBrowser: (url: string) => unknown): void {
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url, appOrigin);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-external') void openInBrowser(event.url);
  });
  contents.on('will-frame-navigate', (event) => {
    // Sub-frames (none today) may not leave the origin at all; the main frame is handled above.
    if (!event.isMainFrame && !sameOrigin(event.url, appOrigin)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!sameOrigin(event.url, appOrigin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (decideWindowOpen(url) === 'open-external') void openInBrowser(url);
    return { action: 'deny' };
  });
}
