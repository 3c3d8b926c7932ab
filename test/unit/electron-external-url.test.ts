import { beforeEach, describe, expect, it, vi } from 'vitest';

const openExternal = vi.fn(async (_url: string, _opts?: unknown) => undefined);
vi.mock('electron', () => ({ shell: { openExternal } }));

const { openExternalVetted } = await import('../../electron/main/external-url');
const { isSafeExternalUrl, MAX_EXTERNAL_URL_LENGTH } = await import('../../electron/main/url-policy');

describe('isSafeExternalUrl', () => {
  it.each([
    'https://paydesk.example/checkout/cs_123',
    'http://127.0.0.1:4610/checkout/cs_123',
    'https://docs.example.com/path?q=1#frag',
    'HTTPS://EXAMPLE.COM/',
  ])('accepts %s', (url) => {
    expect(isSafeExternalUrl(url)).toBe(true);
  });

  it.each([
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['ms-msdt:/id PCWDiagnostic'],
    ['smb://attacker/share'],
    ['mailto:someone@example.com'],
    ['https://user:pass@example.com/'],
    ['https://'],
    ['/relative/path'],
    ['not a url'],
    ['https://example.com/\nheader'],
    [' https://example.com/'],
    [`https://example.com/${'a'.repeat(MAX_EXTERNAL_URL_LENGTH)}`],
    [''],
  ])('refuses %j', (url) => {
    expect(isSafeExternalUrl(url)).toBe(false);
  });

  it('refuses values that are not strings', () => {
    for (const v of [undefined, null, 42, { href: 'https://example.com' }, ['https://example.com']]) expect(isSafeExternalUrl(v)).toBe(false);
  });
});

describe('openExternalVetted', () => {
  beforeEach(() => openExternal.mockClear());

  it('hands a vetted URL, normalised, to the system browser', async () => {
    expect(await openExternalVetted('HTTPS://Example.COM/checkout/cs_1')).toBe(true);
    expect(openExternal).toHaveBeenCalledTimes(1);
    expect(openExternal.mock.calls[0]?.[0]).toBe('https://example.com/checkout/cs_1');
  });

  it('never calls the shell for anything else', async () => {
    expect(await openExternalVetted('file:///C:/Windows/System32/calc.exe')).toBe(false);
    expect(await openExternalVetted('javascript:alert(1)')).toBe(false);
    expect(await openExternalVetted(123)).toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
  });
});
