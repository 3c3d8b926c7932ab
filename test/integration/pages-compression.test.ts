import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

/**
 * The built pages as the build lays them out: each text file with its brotli (`.br`) and gzip
 * (`.gz`) variant beside it (electron.vite.config.ts), except a file too small to gain.
 */
const SCRIPT = `export const methods = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ rail: `rail-${i % 4}`, label: 'Mobile Money' })))};\n`;
const PAGE = `<!doctype html><html><head><script type="module" src="/assets/checkout-Ab12Cd34.js"></script></head><body><div id="root" data-entry="checkout"></div>${'<!-- padding -->'.repeat(40)}</body></html>`;
const TINY = 'export{};\n';

function builtWithVariants(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-renderer-'));
  const write = (path: string, text: string, variants: boolean) => {
    writeFileSync(join(dir, path), text);
    if (!variants) return;
    writeFileSync(join(dir, `${path}.br`), brotliCompressSync(text));
    writeFileSync(join(dir, `${path}.gz`), gzipSync(text));
  };
  for (const entry of ['backoffice', 'checkout']) mkdirSync(join(dir, entry));
  mkdirSync(join(dir, 'assets'));
  write('checkout/index.html', PAGE, true);
  write('backoffice/index.html', PAGE.replaceAll('checkout', 'backoffice'), false);
  write('assets/checkout-Ab12Cd34.js', SCRIPT, true);
  write('assets/tiny-Ab12Cd34.js', TINY, false);
  return dir;
}

const decoders: Record<string, (b: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

describe('pages: compressed at build time, chosen by Accept-Encoding', () => {
  let t: TestContext;
  let dir: string;
  beforeAll(async () => {
    dir = builtWithVariants();
    const previous = process.env.PAYDESK_RENDERER_DIR;
    process.env.PAYDESK_RENDERER_DIR = dir;
    try {
      t = await createTestApp();
    } finally {
      if (previous === undefined) delete process.env.PAYDESK_RENDERER_DIR;
      else process.env.PAYDESK_RENDERER_DIR = previous;
    }
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, acceptEncoding?: string) =>
    t.app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  describe.each([
    { what: 'a hashed script', url: '/assets/checkout-Ab12Cd34.js', plain: SCRIPT, type: /^application\/javascript/ },
    { what: 'the checkout page', url: '/checkout/cs_01HZX9ABCDEF', plain: PAGE, type: /^text\/html/ },
  ])('$what', ({ url, plain, type }) => {
    it.each([
      { accept: 'br', sent: 'br' },
      { accept: 'gzip', sent: 'gzip' },
      // What Chromium sends: brotli wins.
      { accept: 'gzip, deflate, br, zstd', sent: 'br' },
      { accept: 'br;q=0, gzip', sent: 'gzip' },
      { accept: 'gzip;q=0.5, br;q=0.9', sent: 'br' },
    ])('Accept-Encoding "$accept" gets $sent', async ({ accept, sent }) => {
      const res = await get(url, accept);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(sent);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(plain));
      expect(decoders[sent]!(res.rawPayload).toString('utf8')).toBe(plain);
    });

    it.each([undefined, 'identity', 'deflate', 'br;q=0, gzip;q=0'])('Accept-Encoding %s gets the plain file, still marked Vary', async (accept) => {
      const res = await get(url, accept);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.body).toBe(plain);
    });
  });

  it('keeps the caching and security headers on a compressed answer', async () => {
    const script = await get('/assets/checkout-Ab12Cd34.js', 'br');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    const page = await get('/checkout/cs_01HZX9ABCDEF', 'br');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['permissions-policy']).toContain('camera=()');
  });

  it('sends a file the build left uncompressed as it is, whatever the browser accepts', async () => {
    const tiny = await get('/assets/tiny-Ab12Cd34.js', 'gzip, deflate, br');
    expect(tiny.statusCode).toBe(200);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.headers.vary).toMatch(/accept-encoding/i);
    expect(tiny.body).toBe(TINY);
    const page = await get('/backoffice/', 'gzip, deflate, br');
    expect(page.headers['content-encoding']).toBeUndefined();
    expect(page.body).toContain('data-entry="backoffice"');
  });
});
