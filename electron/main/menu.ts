import { Menu, type MenuItemConstructorOptions } from 'electron';

export interface MenuContext {
  appName: string;
  isMac: boolean;
  /** Developer tools and forced reloads are for unpackaged (development) runs only. */
  isPackaged: boolean;
  /** Opens the back office of this app in the system browser. */
  openInBrowser(): void;
  /** Opens the API reference (/docs) in the system browser. */
  openApiDocs(): void;
  /** Shows the data folder (DATA_DIR) in the file manager. */
  showDataFolder(): void;
  /** Embedded (this computer's server, the default) or client of a central server. */
  connection: { mode: 'embedded' } | { mode: 'client'; serverUrl: string };
  /** Opens the "Connect to a server" form. */
  connectToServer(): void;
  /** Asks, then restarts on this computer's embedded server. */
  useEmbedded(): void;
}

/**
 * File → Server Connection: where IT people look for it. The first line says where the back office
 * comes from now; "Use This Computer" is offered only when connected elsewhere.
 */
function connectionMenu(ctx: MenuContext): MenuItemConstructorOptions {
  const current = ctx.connection.mode === 'embedded' ? 'Using this computer (embedded server)' : `Connected to ${new URL(ctx.connection.serverUrl).host}`;
  return {
    label: 'Server Connection',
    submenu: [
      { label: current, enabled: false },
      { type: 'separator' },
      { label: ctx.connection.mode === 'embedded' ? 'Connect to a Server…' : 'Connect to Another Server…', click: () => ctx.connectToServer() },
      { label: 'Use This Computer (Embedded)', enabled: ctx.connection.mode === 'client', click: () => ctx.useEmbedded() },
    ],
  };
}

/** The application menu: the usual items, plus Paydesk's own under File and Help. */
export function buildMenuTemplate(ctx: MenuContext): MenuItemConstructorOptions[] {
  const appMenu: MenuItemConstructorOptions[] = ctx.isMac
    ? [
        {
          label: ctx.appName,
          submenu: [
            { role: 'about' },
            { type: 'separator' },
            { role: 'services' },
            { type: 'separator' },
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            { type: 'separator' },
            { role: 'quit' },
          ],
        },
      ]
    : [];

  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { label: 'Open Back Office in Browser', click: () => ctx.openInBrowser() },
      connectionMenu(ctx),
      // A client keeps no data on this computer: there is no folder to show.
      ...(ctx.connection.mode === 'embedded' ? [{ label: 'Show Data Folder', click: () => ctx.showDataFolder() }] : []),
      { type: 'separator' },
      ctx.isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };

  const edit: MenuItemConstructorOptions = {
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(ctx.isMac ? ([{ role: 'pasteAndMatchStyle' }] as const) : []),
      { role: 'delete' },
      { role: 'selectAll' },
    ],
  };

  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(ctx.isPackaged ? [] : ([{ role: 'forceReload' }, { role: 'toggleDevTools' }] as const)),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };

  const windowMenu: MenuItemConstructorOptions = {
    label: '&Window',
    submenu: ctx.isMac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }],
  };

  const help: MenuItemConstructorOptions = {
    role: 'help',
    label: '&Help',
    submenu: [{ label: 'API Reference', click: () => ctx.openApiDocs() }, ...(ctx.isMac ? [] : ([{ type: 'separator' }, { role: 'about' }] as const))],
  };

  return [...appMenu, file, edit, view, windowMenu, help];
}

export function installApplicationMenu(ctx: MenuContext): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(ctx)));
}
