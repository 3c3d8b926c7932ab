import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { z } from 'zod';
import { IPC_CHANNELS, type IpcChannel } from '../shared/ipc-channels';
import { MAX_EXTERNAL_URL_LENGTH } from './url-policy';
import { isBackOfficeUrl } from './navigation-guard';

/** Argument tuples, one per channel: extra or missing arguments are refused like wrong ones. */
export const PrintRequest = z.strictObject({
  kind: z.enum(['slip', 'receipt']),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'must be 1–128 letters, digits, _ or -' }),
});
export type PrintRequest = z.infer<typeof PrintRequest>;

export const IPC_ARGUMENTS = {
  [IPC_CHANNELS.printDocument]: z.tuple([PrintRequest]),
  [IPC_CHANNELS.appVersion]: z.tuple([]),
  [IPC_CHANNELS.openExternal]: z.tuple([z.string().min(1).max(MAX_EXTERNAL_URL_LENGTH)]),
} as const satisfies Record<IpcChannel, z.ZodTuple>;

type Args<C extends IpcChannel> = z.infer<(typeof IPC_ARGUMENTS)[C]>;

export type CallingEvent = Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>;

export interface IpcImplementations {
  /** Prints the calling window's page (laid out for print by the back office). */
  printDocument(request: PrintRequest, sender: WebContents): Promise<{ printed: boolean; reason?: string }>;
  appVersion(): string;
  /** Opens a vetted http(s) URL in the system browser (external-url.ts). */
  openUrlInBrowser(url: string): Promise<boolean>;
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

export class IpcRejection extends Error {
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
}
