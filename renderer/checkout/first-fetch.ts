/**
 * The checkout page's first data, asked for by a script of its own that loads beside the app's
 * code instead of after it. The page's HTML loads this small module `async` (the build adds the
 * tag, electron.vite.config.ts), so on a slow network the session, its quote and the payment
 * options are on their way while React is still downloading, and the method picker renders from
 * its first run. It imports nothing, so it runs as soon as it arrives.
 *
 * The app's fetch wrapper (api.ts, `request`) takes each answer once, as if it had made the
 * request itself; a later read of the same address goes to the network as usual.
 */

/** The session id is the last segment of `/checkout/{id}`. */
export function sessionIdFromLocation(pathname: string): string | null {
  const m = /\/checkout\/([^/?#]+)\/?$/.exec(pathname);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

export const CHECKOUT_API = '/api/v1/checkout';

/** How the page reads the API: same origin, no credential, never from the browser's cache. */
export const readInit: RequestInit = { method: 'GET', headers: { accept: 'application/json' }, credentials: 'omit', cache: 'no-store' };

const started = new Map<string, Promise<Response | null>>();

/**
 * The answer to a read started here, handed out once: null when none was started for `path`, or
 * when it was not sent after all (a quote for a session that is not open) or failed to arrive.
 */
export function takeStarted(path: string): Promise<Response | null> | null {
  const answer = started.get(path) ?? null;
  started.delete(path);
  return answer;
}

const read = (path: string) => fetch(`${CHECKOUT_API}${path}`, readInit);
const settle = (answer: Promise<Response | null>) => answer.catch(() => null);

const id = typeof location === 'undefined' ? null : sessionIdFromLocation(location.pathname);
if (id) {
  const session = `/sessions/${encodeURIComponent(id)}`;
  const sessionAnswer = read(session);
  started.set(session, settle(sessionAnswer));
  started.set('/options', settle(read('/options')));
  // The quote only for an open session, as the app asks: any other answers 409.
  started.set(
    `${session}/quote`,
    settle(
      sessionAnswer
        .then((res) => (res.ok ? (res.clone().json() as Promise<{ status?: unknown }>) : null))
        .then((s) => (s?.status === 'open' ? read(`${session}/quote`) : null)),
    ),
  );
}
