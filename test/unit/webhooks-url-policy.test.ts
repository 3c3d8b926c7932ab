import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, ownAddresses, refusedAddress } from '../../server/modules/webhooks/url-policy';

const test = (own = ownAddresses({ host: '127.0.0.1', port: 4610, publicBaseUrl: 'https://pay.example.com' })) => ({ mode: 'test' as const, own });

describe('webhook URL policy: Paydesk\'s own address', () => {
  it('derives its addresses from HOST, the bound port and PUBLIC_BASE_URL', () => {
    expect(ownAddresses({ host: '127.0.0.1', port: 0, publicBaseUrl: 'https://pay.example.com/' }, { boundPort: 43210, urls: ['http://127.0.0.1:43210'] })).toEqual([
      { host: '127.0.0.1', port: 43210 },
      { host: 'pay.example.com', port: 443 },
      { host: '127.0.0.1', port: 43210 },
    ]);
  });

  it('refuses every loopback spelling on its port, and its public name, but not other ports', () => {
    for (const url of ['http://127.0.0.1:4610/', 'http://127.0.0.2:4610/', 'http://localhost:4610/', 'http://api.localhost:4610/', 'http://[::1]:4610/', 'http://2130706433:4610/', 'https://pay.example.com/hook', 'https://PAY.example.com./hook']) {
      expect(() => checkWebhookUrl(url, 'test', test().own), url).toThrow(/Paydesk's own address/);
    }
    expect(checkWebhookUrl('http://127.0.0.1:4611/hook', 'test', test().own)).toBe('http://127.0.0.1:4611/hook');
    expect(checkWebhookUrl('https://pay.example.com:8443/hook', 'test', test().own)).toBe('https://pay.example.com:8443/hook');
  });

  it('listening on 0.0.0.0, every address of this machine on that port is itself', () => {
    const own = ownAddresses({ host: '0.0.0.0', port: 4610, publicBaseUrl: null });
    const mine = Object.values(networkInterfaces()).flatMap((l) => l ?? []).map((a) => a.address);
    for (const ip of ['127.0.0.1', ...mine]) expect(refusedAddress(ip, 4610, { mode: 'test', own }), ip).toMatch(/own address|link-local/); // link-local ones are refused anyway
    expect(refusedAddress('127.0.0.1', 4611, { mode: 'test', own })).toBeNull();
  });

  it('refuses an unparsable or over-long URL naming webhook_url', () => {
    expect(() => checkWebhookUrl('not a url', 'test')).toThrow('webhook_url: must be an absolute URL');
    expect(() => checkWebhookUrl(`https://hooks.example.com/${'a'.repeat(500)}`, 'test')).toThrow('webhook_url: must be at most 500 characters');
    expect(() => checkWebhookUrl('ftp://hooks.example.com/', 'test')).toThrow('webhook_url: must be an http or https URL');
  });
});
