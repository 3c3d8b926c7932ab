import type { Session, WebContents } from 'electron';
import { sameOrigin } from './url-policy';

/**
 * The one page allowed to use the camera: the teller's slip scanner
 * (renderer/backoffice/routes.ts `ROUTES.tellerScan`).
 */
export const CAMERA_ROUTE = '/backoffice/teller/scan';

function onCameraRoute(raw: string | undefined, appOrigin: string): boolean {
  if (!raw) return false;
  const url = sameOrigin(raw, appOrigin);
  return !!url && (url.pathname === CAMERA_ROUTE || url.pathname.startsWith(`${CAMERA_ROUTE}/`));
}

export interface PermissionRequestInfo {
  permission: string;
  /** URL of the frame asking. */
  requestingUrl: string;
  isMainFrame: boolean;
  /** For `media`: which devices; only `video` (the camera) is ever granted. */
  mediaTypes?: readonly string[] | undefined;
}

/**
 * Grants a permission request only for the camera, asked by the top frame of the scan page
 * on the app's origin. Everything else (microphone, screen capture, notifications,
 * geolocation, openExternal, HID/USB/serial…) is refused.
 */
export function shouldGrantPermission(req: PermissionRequestInfo, appOrigin: string): boolean {
  if (req.permission !== 'media' || !req.isMainFrame) return false;
  const types = req.mediaTypes ?? [];
  if (types.length === 0 || types.some((t) => t !== 'video')) return false;
  return onCameraRoute(req.requestingUrl, appOrigin);
}

export interface PermissionCheckInfo {
  permission: string;
  requestingOrigin: string;
  /** URL of the page that checks (the window's current URL). */
  pageUrl: string | undefined;
  mediaType?: string | undefined;
}

/** Synchronous permission checks (enumerateDevices, permissions.query): the same rule. */
export function shouldAllowPermissionCheck(check: PermissionCheckInfo, appOrigin: string): boolean {
  if (check.permission !== 'media' || check.mediaType !== 'video') return false;
  if (!sameOrigin(check.requestingOrigin, appOrigin)) return false;
  return onCameraRoute(check.pageUrl, appOrigin);
}

type GuardedSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'>;

export function installPermissionGuards(session: GuardedSession, appOrigin: string): void {
  session.setPermissionRequestHandler((_contents: WebContents, permission, callback, details) => {
    const mediaTypes = 'mediaTypes' in details ? details.mediaTypes : undefined;
    callback(shouldGrantPermission({ permission, requestingUrl: details.requestingUrl, isMainFrame: details.isMainFrame, mediaTypes }, appOrigin));
  });
  session.setPermissionCheckHandler((contents, permission, requestingOrigin, details) =>
    shouldAllowPermissionCheck(
      {
        permission,
        requestingOrigin,
        pageUrl: details.isMainFrame ? (details.requestingUrl ?? contents?.getURL()) : undefined,
        mediaType: details.mediaType,
      },
      appOrigin,
    ),
  );
  // No WebHID / WebUSB / Web Serial devices for any page.
  session.setDevicePermissionHandler(() => false);
}
