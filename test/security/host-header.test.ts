import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope } from '../support/http';
import { loadConfig } from '../../server/config';

/** A Host header that names no one of this server's names is refused (DNS rebinding). */
describe('Host header allow-list', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ env: { HOST: '0.0.0.0', ALLOWED_HOSTS: 'desk.example.org, .corp.example' } });
  });
  afterAll(async () => t.close());

  const withHost = (host: string, url = '/api/v1/checkout/options') => t.app.inject({ method: 'GET', url, headers: { host } });

  it('refuses a foreign name with 400 INVALID_ARGUMENT naming the Host header, on the API, the pages and /docs alike', async () => {
    for (const url of ['/api/v1/checkout/options', '/healthz', '/docs', '/backoffice/', '/checkout/cs_test_x']) {
      for (const host of ['attacker.example', 'attacker.example:4610', 'paydesk.test.attacker.example', 'corp.example.evil']) {
        const res = await withHost(host, url);
        expect(res.statusCode, `${host} ${url}`).toBe(400);
        const err = envelope(res);
        expect(err.code).toBe('INVALID_ARGUMENT');
        expect(err.message).toMatch(/^Host: .* is not a name of this server; add it to ALLOWED_HOSTS/);
      }
    }
  });

  it('serves PUBLIC_BASE_URL’s host, loopback names, IP addresses and the ALLOWED_HOSTS entries', async () => {
    for (const host of [
      'paydesk.test', // PUBLIC_BASE_URL of the test app
      'PAYDESK.TEST:80',
      'localhost:80', // fastify.inject's default
      'localhost',
      'app.localhost:4610',
      '127.0.0.1:4610',
      '[::1]:4610',
      '192.168.1.20:4610', // a LAN address: no DNS, no rebinding
      'desk.example.org',
      'corp.example',
      'branch7.corp.example:443',
    ]) {
      expect((await withHost(host)).statusCode, host).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('serves the configured HOST name', async () => {
    const named = await createTestApp({ env: { HOST: 'paydesk.lan' } });
    try {
      expect((await named.app.inject({ method: 'GET', url: '/healthz', headers: { host: 'paydesk.lan:4610' } })).statusCode).toBe(200);
      expect((await named.app.inject({ method: 'GET', url: '/healthz', headers: { host: 'other.lan:4610' } })).statusCode).toBe(400);
    } finally {
      await named.close();
    }
  });

  it('refuses a malformed ALLOWED_HOSTS at start, naming the variable', () => {
    expect(() => loadConfig({ ALLOWED_HOSTS: 'good.example, bad host' })).toThrow(/ALLOWED_HOSTS/);
    expect(loadConfig({ ALLOWED_HOSTS: ' A.example , .b.example ' }).allowedHosts).toEqual(['a.example', '.b.example']);
  });
});
