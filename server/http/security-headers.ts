import type { FastifyInstance } from 'fastify';

/**
 * /docs (Swagger UI) shares the back office's origin, so it must not be framable (clickjacking a
 * "Try it out" with a staff session) nor run anything but its own bundled scripts. Its scripts
 * and styles are files under /docs/static; 'unsafe-inline' styles are Swagger UI's own.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/**
 * Every response: `X-Content-Type-Options: nosniff`, so a JSON answer that echoes input is
 * never sniffed into HTML or script. /docs also gets its CSP and frame protection (the pages
 * set their own, in pages.ts).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    const route = req.routeOptions.url;
    if (route === '/docs' || route?.startsWith('/docs/')) {
      reply.header('content-security-policy', DOCS_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
    }
    done(null, payload);
  });
}
