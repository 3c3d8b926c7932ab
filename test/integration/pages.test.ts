import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app';

/** A renderer build as electron-vite lays it out: one index.html per entry, hashed bundles in assets/. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-renderer-'));
  for (const entry of ['backoffice', 'checkout']) {
    mkdirSync(join(dir, entry));
    writeFileSync(
      join(dir, entry, 'index.html'),
      `<!doctype html><html><head><script type="module" src="/assets/${entry}-Ab12Cd34.js"></script></head><body><div id="root" data-entry="${entry}"></div></body></html>`,
    );
  }
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'backoffice-Ab12Cd34.js'), 'console.log("backoffice");\n');
  writeFileSync(join(dir, 'assets', '.secret'), 'dotfile\n');
  return dir;
}

/** Points registerPages (called by build()) at `dir` for the apps created inside `fn`. */
async function withRendererDir(dir: string, fn: () => Promise<TestContext>): Promise<TestContext> {
  const previous = process.env.PAYDESK_RENDERER_DIR;
  process.env.PAYDESK_RENDERER_DIR = dir;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.PAYDESK_RENDERER_DIR;
    else process.env.PAYDESK_RENDERER_DIR = previous;
  }
}

describe('pages: built renderer', () => {
  let t: TestContext;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    t = await withRendererDir(dir, () => createTestApp());
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('redirects / to the back office', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/backoffice/');
    const bare = await t.app.inject({ method: 'GET', url: '/backoffice' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/backoffice/');
  });

  it.each(['/backoffice/', '/backoffice/teller/scan', '/backoffice/review/dep_123?tab=notes'])(
    'answers the back-office entry for %s',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('data-entry="backoffice"');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['permissions-policy']).toContain('camera=(self)');
    },
  );

  it.each(['/checkout/cs_01HZX9ABCDEF', '/checkout/cs_01HZX9ABCDEF/receipt', '/checkout/cs_01HZX9ABCDEF/pay/momo'])(
    'answers the checkout entry for %s',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('data-entry="checkout"');
      expect(res.headers['permissions-policy']).toContain('camera=()');
    },
  );

  it('refuses checkout references that are not opaque tokens', async () => {
    for (const url of ['/checkout/', '/checkout/a%20b', '/checkout/cs_1.json', '/checkout/%3Cscript%3E']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
  });

  it('sends a strict CSP and security headers with the HTML', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/backoffice/' });
    const csp = String(res.headers['content-security-policy']);
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('serves hashed assets with long-lived cache headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/backoffice-Ab12Cd34.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('console.log("backoffice");\n');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('does not serve missing assets, dotfiles or paths outside assets/', async () => {
    // (A literal /assets/../x is normalised by the client before it is sent; the encoded form is not.)
    for (const url of ['/assets/nope-123.js', '/assets/.secret', '/assets/%2e%2e/checkout/index.html', '/assets/..%2fcheckout%2findex.html']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.body, url).not.toContain('data-entry');
      expect(res.body, url).not.toContain('dotfile');
    }
  });

  it('leaves the API, docs and health routes alone', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toMatchObject({ status: 'ok', version: expect.any(String) });
    const openapi = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(openapi.statusCode).toBe(200);
    const paths = Object.keys(openapi.json().paths as Record<string, unknown>);
    expect(paths.some((p) => p.startsWith('/api/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/backoffice') || p.startsWith('/checkout') || p.startsWith('/assets'))).toBe(false);
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).not.toContain('data-entry');
    const m = await t.merchant();
    const api = await t.app.inject({ method: 'GET', url: '/api/v1/sessions/cs_missing', headers: bearer(m.api_key) });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toMatch(/application\/json/);
    const unknownApi = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-route' });
    expect(unknownApi.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('answers HEAD for pages and refuses other methods', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/backoffice/' });
    expect(head.statusCode).toBe(200);
    const post = await t.app.inject({ method: 'POST', url: '/backoffice/', payload: {} });
    expect(post.statusCode).toBe(404);
  });
});

describe('pages: renderer not built', () => {
  let t: TestContext;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'paydesk-unbuilt-'));
    dir = join(base, 'out', 'renderer');
    t = await withRendererDir(dir, () => createTestApp());
  });
  afterAll(async () => {
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });

  it.each(['/backoffice/', '/backoffice/teller/scan', '/checkout/cs_01HZX9ABCDEF'])(
    'answers %s with a page that says to run npm run build',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('npm run build');
      expect(res.body).toContain(join(dir, url.startsWith('/checkout') ? 'checkout' : 'backoffice', 'index.html'));
      expect(res.headers['cache-control']).toBe('no-store');
      expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
    },
  );

  it('still redirects / and answers assets with 404, the API with JSON', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/' })).headers.location).toBe('/backoffice/');
    expect((await t.app.inject({ method: 'GET', url: '/assets/backoffice-Ab12Cd34.js' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('picks up a build made while the server runs', async () => {
    mkdirSync(join(dir, 'backoffice'), { recursive: true });
    writeFileSync(join(dir, 'backoffice', 'index.html'), '<!doctype html><div id="root" data-entry="late"></div>');
    const res = await t.app.inject({ method: 'GET', url: '/backoffice/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('data-entry="late"');
  });
});
