import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

/**
 * Web preferences for every window, per Electron's security checklist: the page runs
 * sandboxed, isolated from the preload, with no Node.js anywhere, no <webview>, no insecure
 * content and no experimental or Blink features switched on.
 */
export function secureWebPreferences(opts: { preload?: string; devTools: boolean }): WebPreferences {
  return {
    ...(opts.preload ? { preload: opts.preload } : {}),
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
    safeDialogs: true,
    spellcheck: true,
    devTools: opts.devTools,
  };
}

/** The back-office window: shown once its first page has painted, so no white flash. */
export function backOfficeWindowOptions(opts: { preload: string; devTools: boolean; icon?: string }): BrowserWindowConstructorOptions {
  return {
    title: 'Paydesk',
    width: 1280,
    height: 820,
    minWidth: 960,
    minHeight: 600,
    show: false,
    backgroundColor: '#f5f7fa',
    ...(opts.icon ? { icon: opts.icon } : {}),
    webPreferences: secureWebPreferences({ preload: opts.preload, devTools: opts.devTools }),
  };
}
