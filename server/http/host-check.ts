import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { AppError } from '../lib/errors';

/** The host name of a Host header value: lower case, without port, IPv6 without brackets. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/**
 * Whether a Host header names this server (DNS rebinding; modelled on Vite's `allowedHosts`).
 * A DNS-rebinding page reaches a local server under its own domain name, so only names are
 * checked: IP addresses (no DNS involved), `localhost` and `*.localhost` always pass; other names
 * must be HOST, PUBLIC_BASE_URL's host or listed in ALLOWED_HOSTS (`.example.com`: the domain and
 * its subdomains).
 */
function allowedHost(config: Pick<Config, 'host' | 'publicBaseUrl' | 'allowedHosts'>): (header: string | undefined) => boolean {
  const exact = new Set<string>(['localhost', hostName(config.host)]);
  const suffixes: string[] = ['.localhost'];
  if (config.publicBaseUrl) exact.add(hostName(new URL(config.publicBaseUrl).host));
  for (const entry of config.allowedHosts) {
    if (entry.startsWith('.')) {
      suffixes.push(entry);
      exact.add(entry.slice(1));
    } else exact.add(hostName(entry));
  }
  return (header) => {
    // HTTP/1.0 without Host: no browser sends that, so no rebinding either.
    if (header === undefined || header === '') return true;
    const name = hostName(header).replace(/\.$/, '');
    return isIP(name) !== 0 || exact.has(name) || suffixes.some((s) => name.endsWith(s));
  };
}

/** Refuses, first of all, a request whose Host header is not one of this server's names. */
export function registerHostCheck(app: FastifyInstance, config: Config): void {
  const allowed = allowedHost(config);
  // The last Host value allowed: clients send the same one request after request.
  let lastAllowed: string | undefined;
  app.addHook('onRequest', (req, _reply, done) => {
    const header = req.headers.host;
    if (header !== undefined && header === lastAllowed) return done();
    if (allowed(header)) {
      lastAllowed = header;
      return done();
    }
    throw new AppError(
      'INVALID_ARGUMENT',
      `Host: ${String(header).slice(0, 100)} is not a name of this server; add it to ALLOWED_HOSTS if it should be`,
    );
  });
}
