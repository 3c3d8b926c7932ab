import { beforeEach, describe, expect, it, vi } from 'vitest';
import { decideNavigation, decideWindowOpen, installNavigationGuard, isBackOfficeUrl } from '../../electron/main/navigation-guard';

const ORIGIN = 'http://127.0.0.1:51234';

describe('decideNavigation', () => {
  it.each([
    [`${ORIGIN}/backoffice/`, 'allow'],
    [`${ORIGIN}/backoffice/teller/scan?x=1`, 'allow'],
    [`${ORIGIN}/backoffice`, 'allow'],
    [`${ORIGIN}/`, 'allow'],
    // Same server, but pages for a browser: a payer's checkout page and the API docs.
    [`${ORIGIN}/checkout/cs_123`, 'open-external'],
    [`${ORIGIN}/docs`, 'open-external'],
    [`${ORIGIN}/backofficeX/`, 'open-external'],
    // Another port or host is another origin.
    ['http://127.0.0.1:4610/backoffice/', 'open-external'],
    ['http://localhost:51234/backoffice/', 'open-external'],
    ['https://127.0.0.1:51234/backoffice/', 'open-external'],
    ['https://evil.example/backoffice/', 'open-external'],
    ['file:///etc/passwd', 'deny'],
    ['javascript:alert(1)', 'deny'],
    ['paydesk://anything', 'deny'],
    ['garbage', 'deny'],
  ])('%s → %s', (url, expected) => {
    expect(decideNavigation(url, ORIGIN)).toBe(expected);
  });

  it('never allows anything before the server origin is known', () => {
    expect(isBackOfficeUrl(`${ORIGIN}/backoffice/`, '')).toBe(false);
  });
});

describe('decideWindowOpen', () => {
  it('never opens a window, only the browser for http(s)', () => {
    expect(decideWindowOpen(`${ORIGIN}/backoffice/`)).toBe('open-external');
    expect(decideWindowOpen('https://example.com/')).toBe('open-external');
    expect(decideWindowOpen('file:///tmp/x')).toBe('deny');
    expect(decideWindowOpen('about:blank')).toBe('deny');
  });
});

type Listener = (event: { url: string; isMainFrame?: boolean; preventDefault(): void }) => void;

/** WebContents as far as the guard uses it: named listeners and a window-open handler. */
function fakeContents() {
  const listeners = new Map<string, Listener[]>();
  let openHandler: ((details: { url: string }) => { action: string }) | undefined;
  const contents = {
    on: vi.fn((name: string, fn: Listener) => {
      listeners.set(name, [...(listeners.get(name) ?? []), fn]);
      return contents;
    }),
    setWindowOpenHandler: vi.fn((fn: typeof openHandler) => {
      openHandler = fn;
    }),
  };
  const emit = (name: string, url: string, extra: { isMainFrame?: boolean } = {}) => {
    const event = { url, ...extra, preventDefault: vi.fn() };
    for (const fn of listeners.get(name) ?? []) fn(event);
    return event.preventDefault.mock.calls.length > 0;
  };
  return { contents, emit, open: (url: string) => openHandler?.({ url }) };
}

describe('installNavigationGuard', () => {
  let fake: ReturnType<typeof fakeContents>;
  const openExternal = vi.fn();
  beforeEach(() => {
    openExternal.mockReset();
    fake = fakeContents();
    installNavigationGuard(fake.contents as never, ORIGIN, openExternal);
  });

  it('lets the back office navigate within itself', () => {
    expect(fake.emit('will-navigate', `${ORIGIN}/backoffice/review`)).toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('stops navigation to a checkout page or another site and opens it in the browser', () => {
    expect(fake.emit('will-navigate', `${ORIGIN}/checkout/cs_1`)).toBe(true);
    expect(fake.emit('will-navigate', 'https://example.com/')).toBe(true);
    expect(openExternal.mock.calls.map((c) => c[0])).toEqual([`${ORIGIN}/checkout/cs_1`, 'https://example.com/']);
  });

  it('stops navigation to other schemes without opening anything', () => {
    expect(fake.emit('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('keeps sub-frames and redirects on the app origin', () => {
    expect(fake.emit('will-frame-navigate', 'https://evil.example/', { isMainFrame: false })).toBe(true);
    expect(fake.emit('will-frame-navigate', `${ORIGIN}/backoffice/x`, { isMainFrame: false })).toBe(false);
    expect(fake.emit('will-redirect', 'https://evil.example/')).toBe(true);
    expect(fake.emit('will-redirect', `${ORIGIN}/backoffice/`)).toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('refuses <webview>', () => {
    expect(fake.emit('will-attach-webview', 'about:blank')).toBe(true);
  });

  it('denies every new window, sending vetted links to the browser', () => {
    expect(fake.open('https://example.com/help')).toEqual({ action: 'deny' });
    expect(fake.open(`${ORIGIN}/backoffice/`)).toEqual({ action: 'deny' });
    expect(fake.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(openExternal.mock.calls.map((c) => c[0])).toEqual(['https://example.com/help', `${ORIGIN}/backoffice/`]);
  });
});
