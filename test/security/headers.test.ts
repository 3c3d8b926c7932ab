import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

/** Swagger UI gets a CSP and frame protection; API answers are never sniffed. */
describe('security headers', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('/docs and its assets forbid framing and foreign scripts', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    for (const res of [page, await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })]) {
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('every API JSON answer, success or error, carries X-Content-Type-Options: nosniff', async () => {
    const m = await t.merchant();
    for (const res of [
      await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options' }),
      await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${m.api_key}` } }),
      await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines' }), // 401
      await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' }), // 404
      await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/json' }, payload: '{' }), // 400
      await t.app.inject({ method: 'GET', url: '/openapi.json' }),
    ]) {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-content-type-options'], res.body.slice(0, 80)).toBe('nosniff');
    }
  });
});
