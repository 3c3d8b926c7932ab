import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Negotiator } from '@fastify/accept-negotiator';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_CSP } from '../../shared/csp';

/**
 * Serves the built renderer (`electron-vite build` → out/renderer) over HTTP: the staff back
 * office at /backoffice/ (the desktop window loads it from the embedded server) and the payer
 * pages at /checkout/:reference (the `checkout_url` of a session). Both are single-page apps,
 * so every client route answers its entry's index.html; hashed bundles live under /assets/.
 */
export interface PagesOptions {
  /** Directory holding backoffice/index.html, checkout/index.html and assets/. */
  rendererDir?: string;
}

/** The two HTML entries, by the URL prefix they serve. */
type PageEntry = 'backoffice' | 'checkout';

/**
 * out/renderer next to the repository root: from server/http/ in source (tsx, vitest) and from
 * out/main/ in the Electron bundle, both two levels below the root. The desktop app also sets
 * PAYDESK_RENDERER_DIR explicitly, which wins.
 */
function defaultRendererDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYDESK_RENDERER_DIR) return resolve(env.PAYDESK_RENDERER_DIR);
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../out/renderer');
}

/** Checkout references are session ids (`cs_…`) or other opaque tokens: nothing else is routed. */
const REFERENCE = /^[A-Za-z0-9_-]{1,100}$/; // 100: Fastify's default maxParamLength

const CSP = PAGE_CSP;

/** The "not built" page has no script and no stylesheet at all. */
const CSP_NOT_BUILT = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Camera for the back office's slip scanner only; payers' pages get no device access. */
const PERMISSIONS_POLICY: Record<PageEntry, string> = {
  backoffice: 'camera=(self), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()',
  checkout: 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()',
};

function securityHeaders(reply: FastifyReply, csp: string, entry: PageEntry): FastifyReply {
  return reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    // A checkout reference in the URL must not leak to the sites a payer follows links to.
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .header('permissions-policy', PERMISSIONS_POLICY[entry]);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function notBuiltPage(entry: PageEntry, rendererDir: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Paydesk: pages not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1f2933}code{background:#eef2f6;padding:.1rem .3rem;border-radius:3px}</style>
</head>
<body>
<h1>The ${entry === 'backoffice' ? 'back office' : 'checkout page'} is not built yet</h1>
<p>The server is running, but the web pages it serves have not been built. In the Paydesk folder, run</p>
<p><code>npm run build</code></p>
<p>then reload this page. (Looked for <code>${escapeHtml(join(rendererDir, entry, 'index.html'))}</code>.)</p>
<p>The API is available meanwhile: <a href="/docs">/docs</a>.</p>
</body>
</html>
`;
}

/** The build's compressed variants (x.br, x.gz beside x), brotli preferred, as @fastify/static negotiates them for the assets. */
const ENCODINGS = new Negotiator<'br' | 'gzip'>({ supportedValues: ['br', 'gzip'] });
const EXTENSION = { br: '.br', gzip: '.gz' } as const;

/** The page's compressed variant the request accepts, if the build made it (null: send the plain file). */
async function compressedEntry(file: string, req: FastifyRequest): Promise<{ encoding: 'br' | 'gzip'; body: Buffer } | null> {
  const header = req.headers['accept-encoding'];
  const encoding = typeof header === 'string' ? ENCODINGS.negotiate(header) : null;
  if (!encoding) return null;
  try {
    return { encoding, body: await readFile(file + EXTENSION[encoding]) };
  } catch {
    return null;
  }
}

export async function registerPages(app: FastifyInstance, opts: PagesOptions = {}): Promise<void> {
  const rendererDir = opts.rendererDir ? resolve(opts.rendererDir) : defaultRendererDir();

  // Read on every request (the files are small): a build made while the server runs is
  // picked up without a restart, and a missing build is a page, never a 500.
  const sendEntry = async (entry: PageEntry, req: FastifyRequest, reply: FastifyReply) => {
    const file = join(rendererDir, entry, 'index.html');
    let html: string;
    try {
      html = await readFile(file, 'utf8');
    } catch {
      return securityHeaders(reply, CSP_NOT_BUILT, entry)
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(notBuiltPage(entry, rendererDir));
    }
    // Revalidated every time: it names the current hashed bundles.
    securityHeaders(reply, CSP, entry).header('cache-control', 'no-cache').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
    const compressed = await compressedEntry(file, req);
    return compressed ? reply.header('content-encoding', compressed.encoding).send(compressed.body) : reply.send(html);
  };

  const hidden = { schema: { hide: true } };
  app.get('/', hidden, async (_req, reply) => reply.redirect('/backoffice/', 302));
  app.get('/backoffice', hidden, async (_req, reply) => reply.redirect('/backoffice/', 301));
  app.get('/backoffice/', hidden, async (req, reply) => sendEntry('backoffice', req, reply));
  app.get('/backoffice/*', hidden, async (req, reply) => sendEntry('backoffice', req, reply));

  const checkout = async (req: FastifyRequest, reply: FastifyReply) => {
    const { reference } = req.params as { reference: string };
    if (!REFERENCE.test(reference)) return reply.callNotFound();
    return sendEntry('checkout', req, reply);
  };
  app.get('/checkout/:reference', hidden, checkout);
  app.get('/checkout/:reference/*', hidden, checkout);

  // Content-hashed bundles: a changed file gets a new name, so they are cached for a year.
  // The build writes each text asset brotli- and gzip-compressed beside itself (x.js.br, x.js.gz,
  // electron.vite.config.ts): the variant the request's Accept-Encoding prefers is sent (brotli
  // first), the plain file to a client that accepts neither, always with `Vary: Accept-Encoding`.
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: join(rendererDir, 'assets'),
      prefix: '/assets/',
      index: false,
      dotfiles: 'deny',
      list: false,
      maxAge: '365d',
      immutable: true,
      decorateReply: false,
      preCompressed: true,
      // Not built yet: asset requests are plain 404s and the warning would only be noise.
      suppressWarning: true,
      setHeaders: (reply) => {
        reply.header('x-content-type-options', 'nosniff').header('cross-origin-resource-policy', 'same-origin');
      },
    });
  });
}
