import { beforeEach, describe, expect, it, vi } from 'vitest';

// The preload runs against Electron's renderer-side API; faked here at the module boundary.
const exposeInMainWorld = vi.fn();
const invoke = vi.fn(async (..._args: unknown[]): Promise<unknown> => 'answer');
vi.mock('electron', () => ({ contextBridge: { exposeInMainWorld }, ipcRenderer: { invoke } }));

const { IPC_CHANNELS } = await import('../../electron/shared/ipc-channels');
const { guarded, isTrustedSender, registerIpcHandlers } = await import('../../electron/main/ipc');

const ORIGIN = 'http://127.0.0.1:51234';
const backOffice = { url: `${ORIGIN}/backoffice/teller/scan`, parent: null };

type Handler = (event: object, ...args: unknown[]) => unknown;

function register() {
  const handlers = new Map<string, Handler>();
  const impl = {
    printDocument: vi.fn(async () => ({ printed: true })),
    appVersion: vi.fn(() => '1.2.3'),
    openUrlInBrowser: vi.fn(async () => true),
    connection: vi.fn(() => ({ mode: 'client' as const, serverUrl: 'https://paydesk.bank.example' })),
  };
  registerIpcHandlers({ handle: (channel: string, fn: Handler) => void handlers.set(channel, fn) } as never, () => ORIGIN, impl);
  const call = (channel: string, frame: object | null, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler({ senderFrame: frame, sender: { id: 7 } }, ...args);
  };
  return { handlers, impl, call };
}

describe('isTrustedSender', () => {
  it('trusts the top frame of a back-office page on the app origin only', () => {
    expect(isTrustedSender(backOffice, ORIGIN)).toBe(true);
    expect(isTrustedSender({ url: `${ORIGIN}/`, parent: null }, ORIGIN)).toBe(true);
    expect(isTrustedSender({ ...backOffice, parent: {} }, ORIGIN)).toBe(false);
    expect(isTrustedSender({ url: `${ORIGIN}/checkout/cs_1`, parent: null }, ORIGIN)).toBe(false);
    expect(isTrustedSender({ url: 'https://evil.example/backoffice/', parent: null }, ORIGIN)).toBe(false);
    expect(isTrustedSender({ url: 'file:///backoffice/index.html', parent: null }, ORIGIN)).toBe(false);
    expect(isTrustedSender(null, ORIGIN)).toBe(false);
  });
});

describe('IPC handlers', () => {
  let h: ReturnType<typeof register>;
  beforeEach(() => {
    h = register();
  });

  it('registers exactly the back-office channels', () => {
    expect([...h.handlers.keys()].sort()).toEqual(Object.values(IPC_CHANNELS).sort());
  });

  it('passes parsed arguments and the sender to the implementation', async () => {
    await expect(h.call(IPC_CHANNELS.printDocument, backOffice, { kind: 'slip', id: 'slp_ABC-123' })).resolves.toEqual({ printed: true });
    expect(h.impl.printDocument).toHaveBeenCalledWith({ kind: 'slip', id: 'slp_ABC-123' }, { id: 7 });
    expect(h.call(IPC_CHANNELS.appVersion, backOffice)).toBe('1.2.3');
    await expect(h.call(IPC_CHANNELS.openExternal, backOffice, 'https://example.com/')).resolves.toBe(true);
    expect(h.impl.openUrlInBrowser).toHaveBeenCalledWith('https://example.com/');
    expect(h.call(IPC_CHANNELS.connection, backOffice)).toEqual({ mode: 'client', serverUrl: 'https://paydesk.bank.example' });
  });

  it.each([
    ['a checkout page', { url: `${ORIGIN}/checkout/cs_1`, parent: null }],
    ['a sub-frame', { ...backOffice, parent: { url: `${ORIGIN}/backoffice/` } }],
    ['another origin', { url: 'https://evil.example/backoffice/', parent: null }],
    ['a destroyed frame', null],
  ])('rejects calls from %s before looking at the arguments', (_label, frame) => {
    for (const channel of Object.values(IPC_CHANNELS)) {
      expect(() => h.call(channel, frame, 'https://example.com/')).toThrow(/sender is not the back office/);
    }
    expect(h.impl.openUrlInBrowser).not.toHaveBeenCalled();
    expect(h.impl.appVersion).not.toHaveBeenCalled();
  });

  it.each([
    [IPC_CHANNELS.printDocument, []],
    [IPC_CHANNELS.printDocument, [{ kind: 'invoice', id: 'x' }]],
    [IPC_CHANNELS.printDocument, [{ kind: 'slip', id: '../../etc/passwd' }]],
    [IPC_CHANNELS.printDocument, [{ kind: 'slip', id: 'a'.repeat(129) }]],
    [IPC_CHANNELS.printDocument, [{ kind: 'slip', id: 'ok', deviceName: 'evil' }]],
    [IPC_CHANNELS.printDocument, [{ kind: 'slip', id: 'ok' }, 'extra']],
    [IPC_CHANNELS.appVersion, ['unexpected']],
    [IPC_CHANNELS.connection, ['https://evil.example']],
    [IPC_CHANNELS.openExternal, []],
    [IPC_CHANNELS.openExternal, [42]],
    [IPC_CHANNELS.openExternal, [{ url: 'https://example.com' }]],
    [IPC_CHANNELS.openExternal, [`https://example.com/${'a'.repeat(3000)}`]],
  ])('zod-rejects %s with %j', (channel, args) => {
    expect(() => h.call(channel, backOffice, ...args)).toThrow(/invalid arguments/);
    expect(h.impl.printDocument).not.toHaveBeenCalled();
    expect(h.impl.appVersion).not.toHaveBeenCalled();
    expect(h.impl.openUrlInBrowser).not.toHaveBeenCalled();
  });

  it('reads the app origin per call (it is known only once the server listens)', () => {
    let origin = '';
    const handler = guarded(IPC_CHANNELS.appVersion, () => origin, () => 'v');
    expect(() => handler({ senderFrame: backOffice as never, sender: {} as never })).toThrow(/sender/);
    origin = ORIGIN;
    expect(handler({ senderFrame: backOffice as never, sender: {} as never })).toBe('v');
  });
});

describe('preload bridge', () => {
  it('exposes one function per channel as window.paydesk, and nothing else', async () => {
    await import('../../electron/preload/index');
    expect(exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [key, api] = exposeInMainWorld.mock.calls[0] as [string, Record<string, unknown>];
    expect(key).toBe('paydesk');
    expect(Object.keys(api).sort()).toEqual(['appVersion', 'connection', 'openExternal', 'printDocument']);
    expect(Object.isFrozen(api)).toBe(true);
    for (const fn of Object.values(api)) expect(typeof fn).toBe('function');
  });

  it('sends exactly the arguments each main-process handler accepts', async () => {
    await import('../../electron/preload/index');
    const api = exposeInMainWorld.mock.calls[0]?.[1] as PaydeskDesktopApi;
    const { handlers, impl } = register();
    invoke.mockImplementation(async (channel, ...args) => handlers.get(channel as string)?.({ senderFrame: backOffice, sender: {} }, ...args));

    // Extra properties a page might slip in are dropped by the preload, not forwarded.
    await api.printDocument({ kind: 'receipt', id: 'dep_1', deviceName: 'x' } as PaydeskPrintRequest);
    expect(impl.printDocument).toHaveBeenCalledWith({ kind: 'receipt', id: 'dep_1' }, {});
    await expect(api.appVersion()).resolves.toBe('1.2.3');
    await expect(api.openExternal('https://example.com/')).resolves.toBe(true);
    await expect(api.connection()).resolves.toEqual({ mode: 'client', serverUrl: 'https://paydesk.bank.example' });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual([IPC_CHANNELS.printDocument, IPC_CHANNELS.appVersion, IPC_CHANNELS.openExternal, IPC_CHANNELS.connection]);
  });
});
