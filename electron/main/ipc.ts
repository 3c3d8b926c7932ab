import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { z } from 'zod';
import { CONNECT_CHANNEL, IPC_CHANNELS, type IpcChannel } from '../shared/ipc-channels';
import { MAX_EXTERNAL_URL_LENGTH } from './url-policy';
import { isBackOfficeUrl } from './navigation-guard';

/** Argument tuples, one per channel: extra or missing arguments are refused like wrong ones. */
export const PrintRequest = z.strictObject({
  kind: z.enum(['slip', 'receipt']),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'must be 1–128 letters, digits, _ or -' }),
});
export type PrintRequest = z.infer<typeof PrintRequest>;

const IPC_ARGUMENTS = {
  [IPC_CHANNELS.printDocument]: z.tuple([PrintRequest]),
  [IPC_CHANNELS.appVersion]: z.tuple([]),
  [IPC_CHANNELS.openExternal]: z.tuple([z.string().min(1).max(MAX_EXTERNAL_URL_LENGTH)]),
  [IPC_CHANNELS.connection]: z.tuple([]),
} as const satisfies Record<IpcChannel, z.ZodTuple>;

type Args<C extends IpcChannel> = z.infer<(typeof IPC_ARGUMENTS)[C]>;

export type CallingEvent = Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>;

export interface IpcImplementations {
  /** Prints the calling window's page (laid out for print by the back office). */
  printDocument(request: PrintRequest, sender: WebContents): Promise<{ printed: boolean; reason?: string }>;
  appVersion(): string;
  /** Opens a vetted http(s) URL in the system browser (external-url.ts). */
  openUrlInBrowser(url: string): Promise<boolean>;
  /** Where the back office comes from: this computer's embedded server or a central one. */
  connection(): ConnectionInfo;
}

/** What the back office is told about the connection (renderer/desktop-api.d.ts). */
interface ConnectionInfo {
  mode: 'embedded' | 'client';
  /** The central server's origin in client mode; null when embedded. */
  serverUrl: string | null;
}

/** Sender shape the guard reads (a WebFrameMain). */
export interface SenderFrame {
  url: string;
  parent: unknown;
}

/**
 * Only the top frame of a back-office page on the app's own origin may call the bridge: not a
 * sub-frame, not a checkout page, not some page the window was tricked into loading.
 */
export function isTrustedSender(frame: SenderFrame | null | undefined, appOrigin: string): boolean {
  if (!frame || frame.parent) return false;
  return isBackOfficeUrl(frame.url, appOrigin);
}

class IpcRejection extends Error {
  override name = 'IpcRejection';
}

/** Wraps an implementation: checks the sender, then zod-parses the arguments, then calls it. */
export function guarded<C extends IpcChannel, R>(
  channel: C,
  appOrigin: () => string,
  impl: (args: Args<C>, event: CallingEvent) => R,
): (event: CallingEvent, ...args: unknown[]) => R {
  const schema = IPC_ARGUMENTS[channel];
  return (event, ...args) => {
    if (!isTrustedSender(event.senderFrame, appOrigin())) throw new IpcRejection(`${channel}: sender is not the back office`);
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new IpcRejection(`${channel}: invalid arguments: ${issue ? `${issue.path.join('.') || 'arguments'}: ${issue.message}` : 'rejected'}`);
    }
    return impl(parsed.data as Args<C>, event);
  };
}

/** Registers one `handle` per channel; `appOrigin` is read per call (the port is known late). */
export function registerIpcHandlers(ipcMain: Pick<IpcMain, 'handle'>, appOrigin: () => string, impl: IpcImplementations): void {
  ipcMain.handle(
    IPC_CHANNELS.printDocument,
    guarded(IPC_CHANNELS.printDocument, appOrigin, ([request], event) => impl.printDocument(request, event.sender)),
  );
  ipcMain.handle(IPC_CHANNELS.appVersion, guarded(IPC_CHANNELS.appVersion, appOrigin, () => impl.appVersion()));
  ipcMain.handle(IPC_CHANNELS.openExternal, guarded(IPC_CHANNELS.openExternal, appOrigin, ([url]) => impl.openUrlInBrowser(url)));
  ipcMain.handle(IPC_CHANNELS.connection, guarded(IPC_CHANNELS.connection, appOrigin, () => impl.connection()));
}

/** The connect form sends one string: the address as typed (the main process parses it with ServerUrl). */
const ConnectArguments = z.tuple([z.string().max(MAX_EXTERNAL_URL_LENGTH)]);

/**
 * The connect form's channel: answered only for the top frame of the app's own connection window
 * (`isConnectWindow` compares the sender with that window's web contents), so neither the back
 * office nor anything a server sent can repoint the desk at another server.
 */
export function registerConnectHandler<R>(
  ipcMain: Pick<IpcMain, 'handle'>,
  isConnectWindow: (sender: CallingEvent['sender']) => boolean,
  connect: (url: string) => Promise<R>,
): void {
  ipcMain.handle(CONNECT_CHANNEL, (event: CallingEvent, ...args: unknown[]) => {
    if (!event.senderFrame || event.senderFrame.parent || !isConnectWindow(event.sender)) throw new IpcRejection(`${CONNECT_CHANNEL}: sender is not the connection window`);
    const parsed = ConnectArguments.safeParse(args);
    if (!parsed.success) throw new IpcRejection(`${CONNECT_CHANNEL}: invalid arguments`);
    return connect(parsed.data[0]);
  });
}
