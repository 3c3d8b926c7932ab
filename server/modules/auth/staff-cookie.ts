import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors';

/**
 * The back office keeps its sign-in in an HttpOnly cookie, so a reload or a pasted deep link
 * stays signed in while no page script can read the token (docs/backoffice.md § Where the
 * sign-in lives). `Authorization: Bearer` keeps working for API clients.
 */
export const STAFF_COOKIE = 'paydesk_staff';
/** Sent by the back office on every call: a cross-site page cannot add it without a CORS preflight, which Paydesk never grants. */
const CSRF_HEADER = 'x-paydesk-csrf';
const COOKIE_PATH = '/api/backoffice';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function cookieToken(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === STAFF_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Secure when the request came over https or the public address is https (TLS in front). */
function secure(req: FastifyRequest, publicBaseUrl: string | null): boolean {
  return req.protocol === 'https' || (publicBaseUrl?.startsWith('https:') ?? false);
}

function cookie(value: string, maxAgeSeconds: number | null, isSecure: boolean): string {
  const parts = [`${STAFF_COOKIE}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (isSecure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * A session cookie (no Max-Age): it survives reloads and deep links but not closing the
 * browser or the desktop app, which is what a shared counter PC wants. The token's own
 * 12-hour expiry still applies on the server.
 */
export function setStaffCookie(req: FastifyRequest, reply: FastifyReply, token: string, publicBaseUrl: string | null): void {
  reply.header('set-cookie', cookie(token, null, secure(req, publicBaseUrl)));
}

export function clearStaffCookie(req: FastifyRequest, reply: FastifyReply, publicBaseUrl: string | null): void {
  reply.header('set-cookie', cookie('', 0, secure(req, publicBaseUrl)));
}

/** True when the request says it comes from the back office page (the CSRF header). */
export const fromBackOffice = (req: FastifyRequest): boolean => req.headers[CSRF_HEADER] === '1';

/**
 * An `Origin` header (browsers send one on every cross-site POST) must name this server: a page
 * elsewhere cannot make a signed-in call, nor a sign-in that would count as a failed guess.
 * Clients that send no Origin (API clients, curl) are not browsers acting for someone else.
 */
export function checkOrigin(req: FastifyRequest, what = 'a call signed in by cookie must come from the back office page'): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new AppError('FORBIDDEN', `Origin is not a URL: ${what}`);
  }
  if (host !== req.headers.host) throw new AppError('FORBIDDEN', `Origin ${origin.slice(0, 200)} is not this server: ${what}`);
}

/**
 * A cookie travels with any request the browser makes, so an unsafe call that relies on it
 * must prove it comes from the back office itself: the custom header, and an Origin (when the
 * browser sends one) equal to the address the request was made to.
 */
export function checkCsrf(req: FastifyRequest): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (!fromBackOffice(req)) throw new AppError('FORBIDDEN', `missing ${CSRF_HEADER} header: a call signed in by cookie must come from the back office page`);
  checkOrigin(req);
}
