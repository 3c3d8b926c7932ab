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

/**
 * Reads the whole answer at once (a body nobody reads would hold its request open) and hands on
 * an equal Response for the app to read.
 */
async function read(path: string): Promise<{ response: Response; text: string }> {
  const res = await fetch(`${CHECKOUT_API}${path}`, readInit);
  const text = await res.text();
  return { response: new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }), text };
}
const settle = (answer: Promise<{ response: Response } | null>) => answer.then((a) => a?.response ?? null).catch(() => null);

const id = typeof location === 'undefined' ? null : sessionIdFromLocation(location.pathname);
if (id) {
  const session = `/sessions/${encodeURIComponent(id)}`;
  const sessionAnswer = read(session);
  started.set(session, settle(sessionAnswer));
  started.set('/options', settle(read('/options')));
  // The quote only for an open session, as the app asks: any other answers 409.
  const open = sessionAnswer.then(({ response, text }) => response.ok && (JSON.parse(text) as { status?: unknown }).status === 'open');
  started.set(`${session}/quote`, settle(open.then((yes) => (yes ? read(`${session}/quote`) : null))));
}
