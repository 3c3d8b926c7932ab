import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config';
import { printDocument, printOptions } from '../../electron/main/print';
import { DESKTOP_CSP, installResponseHeaderPolicy, withDesktopCsp } from '../../electron/main/response-headers';
import { desktopServerEnv } from '../../electron/main/server-env';

const USER_DATA = join('/home/teller/.config', 'Paydesk');

describe('desktop server environment', () => {
  it('listens on loopback, on a free port, with data under userData', () => {
    const config = loadConfig(desktopServerEnv({}, USER_DATA));
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(0);
    expect(config.dataDir).toBe(join(USER_DATA, 'data'));
    expect(config.databaseFile).toBe(join(USER_DATA, 'data', 'paydesk.sqlite'));
  });

  it('honours DATA_DIR and PORT but never another bind address', () => {
    const config = loadConfig(desktopServerEnv({ DATA_DIR: '/srv/paydesk', PORT: '4610', HOST: '0.0.0.0', RATE_LIMIT_PER_MIN: '5' }, USER_DATA));
    expect(config.dataDir).toBe('/srv/paydesk');
    expect(config.port).toBe(4610);
    expect(config.host).toBe('127.0.0.1');
    expect(config.rateLimitPerMin).toBe(5);
  });

  it('treats empty DATA_DIR and PORT as unset', () => {
    const config = loadConfig(desktopServerEnv({ DATA_DIR: ' ', PORT: '' }, USER_DATA));
    expect(config.dataDir).toBe(join(USER_DATA, 'data'));
    expect(config.port).toBe(0);
  });
});

describe('CSP on responses to the window', () => {
  const ORIGIN = 'http://127.0.0.1:51234';

  it('adds the strict policy to documents from the app origin', () => {
    const headers = withDesktopCsp({ url: `${ORIGIN}/backoffice/`, resourceType: 'mainFrame', responseHeaders: { 'Content-Type': ['text/html'] } }, ORIGIN);
    expect(headers['Content-Security-Policy']).toEqual([DESKTOP_CSP]);
    expect(headers['Content-Type']).toEqual(['text/html']);
    expect(DESKTOP_CSP).toContain("script-src 'self'");
    expect(DESKTOP_CSP).not.toContain('unsafe');
  });

  it('keeps the server’s own policy alongside (both are enforced)', () => {
    const headers = withDesktopCsp(
      { url: `${ORIGIN}/backoffice/`, resourceType: 'mainFrame', responseHeaders: { 'content-security-policy': ["default-src 'none'"] } },
      ORIGIN,
    );
    expect(headers['content-security-policy']).toEqual(["default-src 'none'", DESKTOP_CSP]);
    expect(headers).not.toHaveProperty('Content-Security-Policy');
  });

  it('leaves scripts, API calls and other origins untouched', () => {
    expect(withDesktopCsp({ url: `${ORIGIN}/assets/a.js`, resourceType: 'script', responseHeaders: {} }, ORIGIN)).toEqual({});
    expect(withDesktopCsp({ url: 'https://example.com/', resourceType: 'mainFrame', responseHeaders: {} }, ORIGIN)).toEqual({});
  });

  it('is installed on the session', () => {
    let listener: ((d: object, cb: (r: object) => void) => void) | undefined;
    installResponseHeaderPolicy({ webRequest: { onHeadersReceived: (fn: typeof listener) => (listener = fn) } } as never, ORIGIN);
    const callback = vi.fn();
    listener?.({ url: `${ORIGIN}/backoffice/`, resourceType: 'mainFrame', responseHeaders: {} }, callback);
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'Content-Security-Policy': [DESKTOP_CSP] } });
  });
});

describe('printing', () => {
  it('asks the user (never silent) and names the document', () => {
    expect(printOptions({ kind: 'slip', id: 'slp_1' })).toMatchObject({ silent: false, header: 'Paydesk slip slp_1' });
  });

  it('reports success, cancellation and printer failures', async () => {
    const sender = (success: boolean, reason: string) => ({ print: vi.fn((_o: unknown, cb?: (s: boolean, r: string) => void) => cb?.(success, reason)) });
    await expect(printDocument(sender(true, ''), { kind: 'receipt', id: 'dep_1' })).resolves.toEqual({ printed: true });
    await expect(printDocument(sender(false, ''), { kind: 'receipt', id: 'dep_1' })).resolves.toEqual({ printed: false, reason: 'cancelled' });
    await expect(printDocument(sender(false, 'Printer is out of paper'), { kind: 'slip', id: 's' })).resolves.toEqual({
      printed: false,
      reason: 'Printer is out of paper',
    });
  });
});
