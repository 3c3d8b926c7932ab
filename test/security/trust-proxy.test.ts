import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig, parseTrustProxy } from '../../server/config';
import { createTestApp, type TestContext } from '../support/app';

/**
 * TRUST_PROXY (docs/deployment.md): by default X-Forwarded-For is ignored, so a payer cannot pick
 * their own client IP and escape the per-IP hosted-checkout bucket; behind a configured proxy the
 * address it forwards is the client IP, for the rate limit and the audit log alike.
 */
const OPTIONS = '/api/v1/checkout/options';

/** A route that echoes the client IP as Fastify resolved it (the audit log and rate limit read the same). */
const echoIp = (app: FastifyInstance) => {
  app.get('/test/ip', async (req) => ({ ip: req.ip, protocol: req.protocol }));
};

const checkout = (t: TestContext, remoteAddress: string, forwardedFor?: string) =>
  t.app.inject({ method: 'GET', url: OPTIONS, remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

describe('TRUST_PROXY unset (the default)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ rateLimitPerMin: 3, extend: echoIp });
  });
  afterAll(async () => t.close());

  it('uses the socket address as the client IP, whatever X-Forwarded-For says', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/ip', remoteAddress: '203.0.113.7', headers: { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' } });
    expect(res.json()).toEqual({ ip: '203.0.113.7', protocol: 'http' });
  });

  it('counts a payer rotating X-Forwarded-For in one bucket: the fourth call is 429', async () => {
    for (let i = 0; i < 3; i++) expect((await checkout(t, '203.0.113.8', `198.51.100.${i + 10}`)).statusCode).toBe(200);
    const fourth = await checkout(t, '203.0.113.8', '198.51.100.99');
    expect(fourth.statusCode).toBe(429);
  });
});

describe('TRUST_PROXY=127.0.0.1 (one reverse proxy on this machine)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ rateLimitPerMin: 3, extend: echoIp, env: { TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => t.close());

  it('takes the client IP and scheme the proxy forwards', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/ip', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' } });
    expect(res.json()).toEqual({ ip: '198.51.100.1', protocol: 'https' });
  });

  it('gives each forwarded client its own bucket: one payer limited, the next one served', async () => {
    for (let i = 0; i < 3; i++) expect((await checkout(t, '127.0.0.1', '198.51.100.20')).statusCode).toBe(200);
    expect((await checkout(t, '127.0.0.1', '198.51.100.20')).statusCode).toBe(429);
    expect((await checkout(t, '127.0.0.1', '198.51.100.21')).statusCode).toBe(200);
  });

  it('still ignores the header from an address that is not the proxy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/ip', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '198.51.100.1' } });
    expect(res.json()).toMatchObject({ ip: '203.0.113.9' });
  });

  it('stops at the first untrusted hop: a forged left-most entry does not win', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/ip', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '10.9.9.9, 198.51.100.2' } });
    expect(res.json()).toMatchObject({ ip: '198.51.100.2' });
  });
});

describe('TRUST_PROXY parsing', () => {
  it.each([
    ['127.0.0.1', ['127.0.0.1']],
    ['10.0.0.0/8, ::1, fd00::/8', ['10.0.0.0/8', '::1', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('%s → %j', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it('is off when unset or empty', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: ' ' }).trustProxy).toBe(false);
  });

  it.each(['true', '*', '1', '2', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.example', '1.2.3.4,', '99'])('refuses %j naming the variable', (raw) => {
    // A hop count is refused: Fastify 5 ignores the headers with one (it cannot check the peer).
    expect(() => loadConfig({ TRUST_PROXY: raw })).toThrow(/TRUST_PROXY/);
  });
});
