/**
 * What the desktop preload (electron/preload/index.ts) exposes as `window.paydesk`.
 * Absent when the back office runs in an ordinary browser (headless `npm start`, staging),
 * so every use is `window.paydesk?.…` with a browser fallback.
 *
 * One function per IPC channel, nothing generic; the main process validates the caller and
 * zod-parses every argument (electron/main/ipc.ts), so these types are a convenience, not
 * the guard.
 */

/** The slip or receipt the calling page shows, laid out by its print stylesheet. */
interface PaydeskPrintRequest {
  kind: 'slip' | 'receipt';
  /** Slip token or deposit id: letters, digits, `_` and `-`, at most 128 characters. */
  id: string;
}

interface PaydeskPrintResult {
  printed: boolean;
  /** Why nothing was printed ("cancelled", a printer error…), when `printed` is false. */
  reason?: string;
}

/** Where the desktop app's back office comes from (docs/desktop.md, "Connecting to a central Paydesk"). */
interface PaydeskConnection {
  /** `embedded`: the server inside this app; `client`: a central Paydesk shared by many desks. */
  mode: 'embedded' | 'client';
  /** The central server's origin (`https://paydesk.bank.example`) in client mode; null when embedded. */
  serverUrl: string | null;
}

interface PaydeskDesktopApi {
  /** Opens the system print dialog for the current page (a slip or receipt); the header names it. */
  printDocument(request: PaydeskPrintRequest): Promise<PaydeskPrintResult>;
  /** The desktop application's version (package.json `version`). */
  appVersion(): Promise<string>;
  /** Opens an http(s) URL (a checkout_url, the docs) in the system browser; false when refused. */
  openExternal(url: string): Promise<boolean>;
  /** Embedded or client mode, and the central server's address. */
  connection(): Promise<PaydeskConnection>;
}

interface Window {
  readonly paydesk?: PaydeskDesktopApi;
}
