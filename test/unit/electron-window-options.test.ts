import { beforeEach, describe, expect, it, vi } from 'vitest';

/** Electron's BrowserWindow, faked: records the options each window is created with. */
const created: unknown[] = [];
vi.mock('electron', () => ({
  BrowserWindow: class {
    constructor(readonly options: unknown) {
      created.push(options);
    }
  },
}));

const { createBackOfficeWindow, createConnectWindow } = await import('../../electron/main/back-office-window');

describe('back-office window options', () => {
  beforeEach(() => {
    created.length = 0;
  });

  it('follows the Electron security checklist', () => {
    createBackOfficeWindow({ preload: '/app/out/preload/index.cjs', devTools: false });
    expect(created).toHaveLength(1);
    const options = created[0] as { webPreferences: Record<string, unknown> };
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
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
      disableBlinkFeatures: 'Auxclick',
      devTools: false,
    });
    expect(options.webPreferences).not.toHaveProperty('enableBlinkFeatures');
    expect(options.webPreferences).not.toHaveProperty('additionalArguments');
  });

  it('waits for the first paint before showing the window', () => {
    createBackOfficeWindow({ preload: '/p.cjs', devTools: false });
    expect(created[0]).toMatchObject({ show: false });
  });

  it('offers developer tools only when asked (unpackaged runs)', () => {
    createBackOfficeWindow({ preload: '/p.cjs', devTools: true });
    expect(created[0]).toMatchObject({ webPreferences: { devTools: true } });
  });

  it('the connect window is a modal child with the same hardened preferences and its own preload', () => {
    const parent = { id: 'main' };
    createConnectWindow(parent as never, { preload: '/app/out/preload/connect.cjs', devTools: false });
    const options = created[0] as { parent: unknown; modal: boolean; webPreferences: Record<string, unknown> };
    expect(options).toMatchObject({ parent, modal: true, show: false });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/connect.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
    });
  });
});
