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

describe('webhook URL policy: address ranges (ipaddr.js), IPv4 carried inside IPv6 decoded', () => {
  const live = { mode: 'live' as const, own: [] };
  const testMode = { mode: 'test' as const, own: [] };

  it('refuses every address but global unicast for live integrations', () => {
    for (const [ip, why] of [
      // NAT64 (64:ff9b::/96) of the metadata address and of a private one
      ['64:ff9b::a9fe:a9fe', /\(169\.254\.169\.254\) is a link-local or cloud metadata/],
      ['64:ff9b::a00:1', /\(10\.0\.0\.1\) is a private-network address/],
      // 6to4 (2002::/16) of the metadata address
      ['2002:a9fe:a9fe::1', /\(169\.254\.169\.254\) is a link-local or cloud metadata/],
      // IPv4-compatible (::/96) and IPv4-mapped (::ffff:0:0/96) forms
      ['::a9fe:a9fe', /\(169\.254\.169\.254\) is a link-local or cloud metadata/],
      ['::ffff:a9fe:a9fe', /\(169\.254\.169\.254\) is a link-local or cloud metadata/],
      ['::ffff:7f00:1', /\(127\.0\.0\.1\) is a loopback address/],
      ['::ffff:0:a00:1', /\(10\.0\.0\.1\) is a private-network address/],
      // Teredo (2001::/32): the client address is the last 32 bits inverted (here 127.0.0.1)
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', /\(65\.54\.227\.120, 127\.0\.0\.1\) is a loopback address/],
      // benchmarking, IETF protocol assignments, reserved, documentation
      ['198.18.0.1', /reserved, documentation or special-purpose address \(reserved\)/],
      ['198.19.255.254', /special-purpose/],
      ['240.0.0.1', /special-purpose/],
      ['192.0.0.1', /special-purpose/],
      ['192.0.2.1', /special-purpose/],
      ['198.51.100.7', /special-purpose/],
      ['203.0.113.9', /special-purpose/],
      ['2001:db8::1', /special-purpose/],
      ['2001:2::1', /special-purpose/],
      ['64:ff9b:1::a00:1', /special-purpose|private/],
      ['100::1', /special-purpose/],
      ['4000::1', /special-purpose address \(unassigned\)/],
      ['::808:808', /special-purpose/], // IPv4-compatible (::/96) of a public address: deprecated, never routed
      // the ones refused before
      ['127.0.0.1', /loopback/],
      ['::1', /loopback/],
      ['10.1.2.3', /private-network/],
      ['100.64.0.1', /private-network/],
      ['fd12:3456::1', /private-network/],
      ['fec0::1', /private-network/],
      ['169.254.169.254', /metadata/],
      ['fe80::1', /metadata/],
      ['100.100.100.200', /metadata/],
      ['fd00:ec2::254', /metadata/],
      ['0.0.0.0', /not a unicast/],
      ['::', /not a unicast/],
      ['224.0.0.1', /not a unicast/],
      ['ff02::1', /not a unicast/],
      ['255.255.255.255', /not a unicast/],
    ] as const) {
      expect(refusedAddress(ip, 443, live), ip).toMatch(why);
    }
  });

  it('lets global unicast through, in its IPv6 translations too', () => {
    for (const ip of ['8.8.8.8', '172.32.0.1', '198.20.0.1', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8']) {
      expect(refusedAddress(ip, 443, live), ip).toBeNull();
    }
  });

  it('test integrations keep loopback and private receivers, but never metadata or non-unicast, in any spelling', () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.5', '64:ff9b::a00:1', '198.18.0.1']) expect(refusedAddress(ip, 5000, testMode), ip).toBeNull();
    for (const ip of ['::a9fe:a9fe', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', '::ffff:224.0.0.1', '64:ff9b::0:0']) expect(refusedAddress(ip, 5000, testMode), ip).not.toBeNull();
  });

  it('judges URLs by the same rules, whatever the spelling of the address', () => {
    for (const url of ['https://[64:ff9b::a9fe:a9fe]/hook', 'https://[64:ff9b::169.254.169.254]/hook', 'https://[::ffff:169.254.169.254]/', 'https://[::169.254.169.254]/', 'https://198.18.0.1/', 'https://192.0.0.1/', 'https://192.0.2.1/', 'https://240.0.0.1/', 'https://[2002:a9fe:a9fe::1]/']) {
      expect(() => checkWebhookUrl(url, 'live'), url).toThrow(/^webhook_url: must not point to /);
    }
    expect(() => checkWebhookUrl('http://[::a9fe:a9fe]/', 'test')).toThrow(/metadata/);
  });
});
