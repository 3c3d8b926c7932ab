/**
 * IPC channel names, shared by the preload (which invokes them) and the main process (which
 * handles them). Nothing else lives here: the preload is sandboxed and bundles what it imports.
 */
export const IPC_CHANNELS = {
  printDocument: 'paydesk:print-document',
  appVersion: 'paydesk:app-version',
  openExternal: 'paydesk:open-external',
  connection: 'paydesk:connection',
} as const;

export type IpcChannel = (typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS];

/**
 * The "Connect to a server" form's one channel (electron/preload/connect.ts). Kept apart from the
 * back-office bridge: only the app's own connection window may change which server it talks to,
 * never a page a server sent.
 */
export const CONNECT_CHANNEL = 'paydesk:connect-to-server';
