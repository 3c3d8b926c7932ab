import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import { loadConfig } from '../../server/config';
import { startServer, type RunningServer } from '../../server/runtime';
import { createBackOfficeWindow } from './back-office-window';
import { openExternalVetted } from './external-url';
import { registerIpcHandlers } from './ipc';
import { installApplicationMenu } from './menu';
import { installNavigationGuard } from './navigation-guard';
import { installPermissionGuards } from './permission-guard';
import { printDocument } from './print';
import { installResponseHeaderPolicy } from './response-headers';
import { desktopServerEnv } from './server-env';

/**
 * The desktop app: the embedded server (the same one `npm run serve` runs) on a loopback port,
 * and the back office in a window that loads it. Security guards live in their own modules and
 * are unit-tested (test/unit/electron-*.test.ts); this file only wires them.
 */

// Data and the single-instance lock live under ".../Paydesk" whatever the package is called.
app.setName('Paydesk');
app.setPath('userData', join(app.getPath('appData'), 'Paydesk'));
app.enableSandbox();

let server: RunningServer | null = null;
let mainWindow: BrowserWindow | null = null;
let appOrigin = '';
let quitState: 'running' | 'stopping' | 'stopped' = 'running';

function backOfficeUrl(): string {
  return new URL('/backoffice/', appOrigin).toString();
}

function createMainWindow(): BrowserWindow {
  const win = createBackOfficeWindow({ preload: join(import.meta.dirname, '../preload/index.cjs'), devTools: !app.isPackaged });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  void win.loadURL(backOfficeUrl());
  return win;
}

function focusMainWindow(): void {
  if (!mainWindow) {
    if (server) mainWindow = createMainWindow();
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.focus();
}

async function start(): Promise<void> {
  process.env.PAYDESK_RENDERER_DIR ??= join(import.meta.dirname, '../renderer');
  const config = loadConfig(desktopServerEnv(process.env, app.getPath('userData')));
  server = await startServer(config);
  appOrigin = new URL(server.url).origin;
  process.stdout.write(`paydesk listening on ${appOrigin} (data: ${config.databaseFile})\n`);

  installPermissionGuards(session.defaultSession, appOrigin);
  installResponseHeaderPolicy(session.defaultSession, appOrigin);
  registerIpcHandlers(ipcMain, () => appOrigin, {
    printDocument: (request, sender) => printDocument(sender, request),
    appVersion: () => app.getVersion(),
    openUrlInBrowser: (url) => openExternalVetted(url),
  });
  installApplicationMenu({
    appName: app.getName(),
    isMac: process.platform === 'darwin',
    isPackaged: app.isPackaged,
    openInBrowser: () => void openExternalVetted(backOfficeUrl()),
    openApiDocs: () => void openExternalVetted(new URL('/docs', appOrigin).toString()),
    showDataFolder: () => void shell.openPath(config.dataDir),
  });
  mainWindow = createMainWindow();
}

/** Stops taking requests, lets those in flight finish, closes the database; then quits. */
function quitCleanly(event: Electron.Event): void {
  if (quitState === 'stopped' || !server) return;
  event.preventDefault();
  if (quitState === 'stopping') return;
  quitState = 'stopping';
  const running = server;
  running
    .stop()
    .catch((err: unknown) => process.stderr.write(`paydesk: shutdown failed: ${(err as Error).message}\n`))
    .finally(() => {
      quitState = 'stopped';
      server = null;
      app.quit();
    });
}

if (!app.requestSingleInstanceLock()) {
  // Another Paydesk owns the database: bring its window forward (second-instance) and leave.
  app.quit();
} else {
  app.on('second-instance', focusMainWindow);
  // Every web contents, including any a future feature creates, gets the navigation guard.
  app.on('web-contents-created', (_event, contents) => installNavigationGuard(contents, appOrigin, openExternalVetted));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', focusMainWindow);
  app.on('before-quit', quitCleanly);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`paydesk: failed to start: ${message}\n`);
      dialog.showErrorBox('Paydesk could not start', message);
      app.exit(1);
    });
}
