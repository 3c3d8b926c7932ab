import type { OnHeadersReceivedListenerDetails, Session } from 'electron';
import { PAGE_CSP } from '../../shared/csp';
import { sameOrigin } from './url-policy';

/** The policy the server sends with its pages, enforced here as well. */
export const DESKTOP_CSP = PAGE_CSP;

type Headers = Record<string, string[]>;

/**
 * Response headers as the window sees them: every document from the app's origin carries the
 * strict CSP even if some route forgot it (a response's own CSP, when present, also applies:
 * browsers enforce every policy they are given). Other origins are never loaded in the window.
 */
export function withDesktopCsp(details: Pick<OnHeadersReceivedListenerDetails, 'url' | 'resourceType' | 'responseHeaders'>, appOrigin: string): Headers {
  const headers: Headers = { ...(details.responseHeaders ?? {}) };
  const isDocument = details.resourceType === 'mainFrame' || details.resourceType === 'subFrame';
  if (isDocument && sameOrigin(details.url, appOrigin)) {
    const existing = Object.keys(headers).find((k) => k.toLowerCase() === 'content-security-policy');
    headers[existing ?? 'Content-Security-Policy'] = [...(existing ? (headers[existing] ?? []) : []), DESKTOP_CSP];
  }
  return headers;
}

export function installResponseHeaderPolicy(session: Pick<Session, 'webRequest'>, appOrigin: string): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withDesktopCsp(details, appOrigin) });
  });
}
