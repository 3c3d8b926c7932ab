/**
 * IPC channel names, shared by the preload (which invokes them) and the main process (which
 * handles them). Nothing else lives here: the preload is sandboxed and bundles what it imports.
 */
export const IPC_CHANNELS = {
  printDocument: 'paydesk:print-document',
  appVersion: 'paydesk:app-version',
  openExternal: 'paydesk:open-external',
} as const;

export type IpcChannel = (typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS];
