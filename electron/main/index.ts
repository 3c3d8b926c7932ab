import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, net, session, shell } from 'electron';
import { loadConfig } from '../../server/config';
import { startServer, type RunningServer } from '../../server/runtime';
import { lifecycleLine } from '../../server/lifecycle-log';
import { createBackOfficeWindow, createConnectWindow } from './back-office-window';
import { connectPageUrl, offlinePageUrl } from './connection-pages';
import { EMBEDDED, readConnection, settingsFile, type Connection } from './connection-settings';
import { connectToServer, useEmbedded } from './connection-switch';
import { openExternalVetted } from './external-url';
import { registerConnectHandler, registerIpcHandlers } from './ipc';
import { installApplicationMenu } from './menu';
import { installNavigationGuard } from './navigation-guard';
import { installPermissionGuards } from './permission-guard';
import { printDocument } from './print';
import { installResponseHeaderPolicy } from './response-headers';
import { desktopServerEnv } from './server-env';

/**
 * The desktop app: the back office in a window, loaded from the embedded server (the same one
 * `npm run serve` runs, on a loopback port: the default) or, in client mode, from a central
 * Paydesk whose address is in the settings file (connection-settings.ts; docs/desktop.md). Either
 * way every guard is given that one origin. Security guards live in their own modules and are
 * unit-tested (test/unit/electron-*.test.ts); this file only wires them.
 */

// Data and the single-instance lock live under ".../Paydesk" whatever the package is called.
app.setName('Paydesk');
app.setPath('userData', join(app.getPath('appData'), 'Paydesk'));
app.enableSandbox();

let server: RunningServer | null = null;
let mainWindow: BrowserWindow | null = null;
let connectWindow: BrowserWindow | null = null;
let connection: Connection = EMBEDDED;
/** The one origin the window, the guards and the IPC trust: the embedded server's or the central one's. */
let appOrigin = '';
/** While a client cannot reach its server, the window retries this often. */
const RECONNECT_SECONDS = 5;
let reconnectTimer: NodeJS.Timeout | null = null;
let quitState: 'running' | 'stopping' | 'stopped' = 'running';

function backOfficeUrl(): string {
  return new URL('/backoffice/', appOrigin).toString();
}

function createMainWindow(): BrowserWindow {
  const win = createBackOfficeWindow({ preload: join(import.meta.dirname, '../preload/index.cjs'), devTools: !app.isPackaged });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
    if (reconnectTimer) clearTimeout(reconnectTimer);
  });
  if (connection.mode === 'client') {
    // The central server down or unreachable: say so in the window and keep trying (Chromium's own
    // error page would be blank to a teller). -3 is an aborted load (a newer navigation), not a failure.
    win.webContents.on('did-fail-load', (_event, code, description, _url, isMainFrame) => {
      if (!isMainFrame || code === -3 || win.isDestroyed()) return;
      win.show();
      void win.loadURL(offlinePageUrl(appOrigin, description || `error ${code}`, RECONNECT_SECONDS));
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = setTimeout(() => {
        if (!win.isDestroyed()) void win.loadURL(backOfficeUrl());
      }, RECONNECT_SECONDS * 1000);
    });
  }
  void win.loadURL(backOfficeUrl());
  return win;
}

/** File → Server Connection → Connect to a Server…: the small form window (one at a time). */
function openConnectWindow(): void {
  if (connectWindow) return connectWindow.focus();
  const win = createConnectWindow(mainWindow, { preload: join(import.meta.dirname, '../preload/connect.cjs'), devTools: !app.isPackaged });
  connectWindow = win;
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (connectWindow === win) connectWindow = null;
  });
  void win.loadURL(connectPageUrl(connection.mode === 'client' ? connection.serverUrl : null));
}

function relaunch(): void {
  app.relaunch();
  app.quit();
}

/** File → Server Connection → Use This Computer: confirmed first, since the desk's data moves. */
async function confirmUseEmbedded(): Promise<void> {
  if (connection.mode !== 'client') return;
  const options = {
    type: 'question' as const,
    buttons: ['Use This Computer', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Use this computer',
    message: 'Stop using the central server and use the database on this computer?',
    detail: `Paydesk restarts with its own server on this computer. Slips and deposits on ${connection.serverUrl} are not visible there, and what is recorded there is not seen by other desks.`,
  };
  const { response } = mainWindow ? await dialog.showMessageBox(mainWindow, options) : await dialog.showMessageBox(options);
  if (response === 0) useEmbedded({ file: settingsFile(app.getPath('userData')), relaunch });
}

function focusMainWindow(): void {
  if (!mainWindow) {
    if (appOrigin) mainWindow = createMainWindow();
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.focus();
}

/** Embedded: starts the server and answers its origin. Client: no server, the central origin. */
async function startBackend(): Promise<{ origin: string; dataDir: string | null }> {
  if (connection.mode === 'client') {
    process.stdout.write(`paydesk: client of ${connection.serverUrl} (no embedded server, no local data)\n`);
    return { origin: connection.serverUrl, dataDir: null };
  }
  process.env.PAYDESK_RENDERER_DIR ??= join(import.meta.dirname, '../renderer');
  const config = loadConfig(desktopServerEnv(process.env, app.getPath('userData')));
  server = await startServer(config);
  const origin = new URL(server.url).origin;
  lifecycleLine(`paydesk listening on ${origin} (data: ${config.databaseFile})`, { url: origin, engine: server.database.engine });
  return { origin, dataDir: config.dataDir };
}

async function start(): Promise<void> {
  // A bad settings file stops the launch with its message (below): never a silent embedded fall-back.
  connection = readConnection(settingsFile(app.getPath('userData')), process.env);
  const backend = await startBackend();
  appOrigin = backend.origin;

  installPermissionGuards(session.defaultSession, appOrigin);
  installResponseHeaderPolicy(session.defaultSession, appOrigin);
  registerIpcHandlers(ipcMain, () => appOrigin, {
    printDocument: (request, sender) => printDocument(sender, request),
    appVersion: () => app.getVersion(),
    openUrlInBrowser: (url) => openExternalVetted(url),
    connection: () => ({ mode: connection.mode, serverUrl: connection.mode === 'client' ? connection.serverUrl : null }),
  });
  registerConnectHandler(
    ipcMain,
    (sender) => !!connectWindow && !connectWindow.isDestroyed() && sender.id === connectWindow.webContents.id,
    (url) => connectToServer(url, { file: settingsFile(app.getPath('userData')), fetch: (u, init) => net.fetch(u, init), relaunch }),
  );
  installApplicationMenu({
    appName: app.getName(),
    isMac: process.platform === 'darwin',
    isPackaged: app.isPackaged,
    openInBrowser: () => void openExternalVetted(backOfficeUrl()),
    openApiDocs: () => void openExternalVetted(new URL('/docs', appOrigin).toString()),
    showDataFolder: () => void (backend.dataDir && shell.openPath(backend.dataDir)),
    connection,
    connectToServer: openConnectWindow,
    useEmbedded: () => void confirmUseEmbedded(),
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
  // Another Paydesk owns the database (or the connection): bring its window forward and leave.
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
