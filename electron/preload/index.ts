import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNELS } from '../shared/ipc-channels';

/**
 * The whole desktop bridge: one function per channel, each passing exactly its own arguments.
 * No ipcRenderer, no generic invoke/send/on reaches the page. Types: renderer/desktop-api.d.ts.
 */
const api: PaydeskDesktopApi = {
  printDocument: (request) => ipcRenderer.invoke(IPC_CHANNELS.printDocument, { kind: request.kind, id: request.id }),
  appVersion: () => ipcRenderer.invoke(IPC_CHANNELS.appVersion),
  openExternal: (url) => ipcRenderer.invoke(IPC_CHANNELS.openExternal, url),
  connection: () => ipcRenderer.invoke(IPC_CHANNELS.connection),
};

contextBridge.exposeInMainWorld('paydesk', Object.freeze(api));
