/** Pure URL rules shared by the guards; no Electron API here. */

/** Longest URL handed to the system browser; a checkout_url is far shorter. */
export const MAX_EXTERNAL_URL_LENGTH = 2048;

/**
 * Whether `raw` may be handed to the operating system: an absolute http(s) URL with a host and
 * no embedded credentials. Everything else (file:, javascript:, custom protocol handlers such as
 * ms-msdt: or smb:) could run code or leak data through the OS, so it never leaves the app.
 */
export function isSafeExternalUrl(raw: unknown): raw is string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_EXTERNAL_URL_LENGTH) return false;
  // Control characters and whitespace have no business in a URL we pass to a shell.
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return false;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (!url.hostname) return false;
  if (url.username || url.password) return false;
  return true;
}

/** Parses `raw` and reports whether it is on exactly `appOrigin` (scheme, host and port). */
export function sameOrigin(raw: string, appOrigin: string): URL | null {
  try {
    const url = new URL(raw);
    return url.origin === new URL(appOrigin).origin ? url : null;
  } catch {
    return null;
  }
}
