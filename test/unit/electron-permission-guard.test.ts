import { describe, expect, it, vi } from 'vitest';
import { CAMERA_ROUTE, installPermissionGuards, shouldAllowPermissionCheck, shouldGrantPermission } from '../../electron/main/permission-guard';
import { ROUTES } from '../../renderer/backoffice/routes';

const ORIGIN = 'http://127.0.0.1:51234';
const SCAN = `${ORIGIN}${CAMERA_ROUTE}`;

describe('shouldGrantPermission', () => {
  const camera = { permission: 'media', requestingUrl: SCAN, isMainFrame: true, mediaTypes: ['video'] };

  it('grants the camera to the scan page', () => {
    expect(shouldGrantPermission(camera, ORIGIN)).toBe(true);
    expect(shouldGrantPermission({ ...camera, requestingUrl: `${SCAN}/slip?x=1` }, ORIGIN)).toBe(true);
  });

  it.each([
    ['another back-office page', { requestingUrl: `${ORIGIN}/backoffice/review` }],
    ['a look-alike path', { requestingUrl: `${SCAN}-x` }],
    ['a checkout page', { requestingUrl: `${ORIGIN}/checkout/cs_1` }],
    ['another origin', { requestingUrl: `http://127.0.0.1:4610${CAMERA_ROUTE}` }],
    ['a sub-frame', { isMainFrame: false }],
    ['the microphone', { mediaTypes: ['audio'] }],
    ['camera and microphone', { mediaTypes: ['video', 'audio'] }],
    ['no media types', { mediaTypes: [] }],
    ['unspecified media types', { mediaTypes: undefined }],
  ])('refuses %s', (_label, override) => {
    expect(shouldGrantPermission({ ...camera, ...override }, ORIGIN)).toBe(false);
  });

  it.each(['notifications', 'geolocation', 'display-capture', 'openExternal', 'clipboard-read', 'hid', 'usb', 'serial', 'fullscreen'])(
    'refuses %s even on the scan page',
    (permission) => {
      expect(shouldGrantPermission({ ...camera, permission }, ORIGIN)).toBe(false);
    },
  );

  it('is the route the back office scans on', () => {
    expect(CAMERA_ROUTE).toBe(ROUTES.tellerScan.path);
  });
});

describe('shouldAllowPermissionCheck', () => {
  const check = { permission: 'media', requestingOrigin: ORIGIN, pageUrl: SCAN, mediaType: 'video' };
  it('allows the camera check on the scan page only', () => {
    expect(shouldAllowPermissionCheck(check, ORIGIN)).toBe(true);
    expect(shouldAllowPermissionCheck({ ...check, pageUrl: `${ORIGIN}/backoffice/` }, ORIGIN)).toBe(false);
    expect(shouldAllowPermissionCheck({ ...check, pageUrl: undefined }, ORIGIN)).toBe(false);
    expect(shouldAllowPermissionCheck({ ...check, mediaType: 'audio' }, ORIGIN)).toBe(false);
    expect(shouldAllowPermissionCheck({ ...check, requestingOrigin: 'https://evil.example' }, ORIGIN)).toBe(false);
    expect(shouldAllowPermissionCheck({ ...check, permission: 'notifications' }, ORIGIN)).toBe(false);
  });
});

describe('installPermissionGuards', () => {
  function fakeSession() {
    const s = {
      request: undefined as undefined | ((...a: unknown[]) => void),
      check: undefined as undefined | ((...a: unknown[]) => boolean),
      device: undefined as undefined | ((...a: unknown[]) => boolean),
      setPermissionRequestHandler: vi.fn((fn) => (s.request = fn)),
      setPermissionCheckHandler: vi.fn((fn) => (s.check = fn)),
      setDevicePermissionHandler: vi.fn((fn) => (s.device = fn)),
    };
    return s;
  }

  it('wires Electron handlers that apply the rules', () => {
    const s = fakeSession();
    installPermissionGuards(s as never, ORIGIN);
    const answer = (permission: string, details: object) => {
      const callback = vi.fn();
      s.request?.({}, permission, callback, details);
      expect(callback).toHaveBeenCalledTimes(1);
      return callback.mock.calls[0]?.[0];
    };
    expect(answer('media', { requestingUrl: SCAN, isMainFrame: true, mediaTypes: ['video'] })).toBe(true);
    expect(answer('media', { requestingUrl: `${ORIGIN}/backoffice/`, isMainFrame: true, mediaTypes: ['video'] })).toBe(false);
    expect(answer('notifications', { requestingUrl: SCAN, isMainFrame: true })).toBe(false);

    const contents = { getURL: () => SCAN };
    expect(s.check?.(contents, 'media', ORIGIN, { isMainFrame: true, mediaType: 'video' })).toBe(true);
    expect(s.check?.({ getURL: () => `${ORIGIN}/backoffice/` }, 'media', ORIGIN, { isMainFrame: true, mediaType: 'video' })).toBe(false);
    expect(s.check?.(contents, 'media', ORIGIN, { isMainFrame: false, mediaType: 'video' })).toBe(false);
    expect(s.device?.({ deviceType: 'usb', origin: ORIGIN })).toBe(false);
  });
});
