import { BrowserWindow } from 'electron';

export interface BackOfficeWindowOptions {
  /** out/preload/index.cjs */
  preload: string;
  /** Developer tools for unpackaged (development) runs only. */
  devTools: boolean;
}

/**
 * The back-office window, per Electron's security checklist: the page runs sandboxed and
 * isolated from the preload, with no Node.js anywhere, no <webview>, no insecure content, no
 * experimental features, and middle-click cannot open windows. The options are written out
 * at the constructor so a reviewer (and electronegativity) sees them where they apply.
 * It is shown once its first page has painted, so there is no white flash.
 */
export function createBackOfficeWindow(opts: BackOfficeWindowOptions): BrowserWindow {
  return new BrowserWindow({
    title: 'Paydesk',
    width: 1280,
    height: 820,
    minWidth: 960,
    minHeight: 600,
    show: false,
    backgroundColor: '#f5f7fa',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      disableBlinkFeatures: 'Auxclick',
      safeDialogs: true,
      spellcheck: true,
      devTools: opts.devTools,
    },
  });
}

/**
 * The small "Connect to a server" window (File → Server Connection): a modal child of the back
 * office with the same hardened preferences and its own preload (out/preload/connect.cjs).
 */
export function createConnectWindow(parent: BrowserWindow | null, opts: BackOfficeWindowOptions): BrowserWindow {
  return new BrowserWindow({
    title: 'Connect to a Paydesk server',
    width: 560,
    height: 420,
    resizable: false,
    minimizable: false,
    maximizable: false,
    ...(parent ? { parent, modal: true } : {}),
    show: false,
    backgroundColor: '#f5f7fa',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      disableBlinkFeatures: 'Auxclick',
      safeDialogs: true,
      spellcheck: false,
      devTools: opts.devTools,
    },
  });
}
