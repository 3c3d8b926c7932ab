import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';

const buildFromTemplate = vi.fn((template: unknown) => ({ template }));
const setApplicationMenu = vi.fn();
vi.mock('electron', () => ({ Menu: { buildFromTemplate, setApplicationMenu } }));

const { buildMenuTemplate, installApplicationMenu } = await import('../../electron/main/menu');

type Connection = { mode: 'embedded' } | { mode: 'client'; serverUrl: string };

function context(overrides: { isMac?: boolean; isPackaged?: boolean; connection?: Connection } = {}) {
  return {
    appName: 'Paydesk',
    isMac: false,
    isPackaged: true,
    openInBrowser: vi.fn(),
    openApiDocs: vi.fn(),
    showDataFolder: vi.fn(),
    connection: { mode: 'embedded' } as Connection,
    connectToServer: vi.fn(),
    useEmbedded: vi.fn(),
    ...overrides,
  };
}

/** Every role and label in the menu, depth-first. */
function flatten(items: readonly MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? flatten(item.submenu) : [])]);
}
const roles = (items: readonly MenuItemConstructorOptions[]) => flatten(items).map((i) => i.role).filter(Boolean);
const byLabel = (items: readonly MenuItemConstructorOptions[], label: string) => flatten(items).find((i) => i.label === label);

describe('application menu', () => {
  it('has the usual menus and edit roles (copy and paste work in the back office)', () => {
    const template = buildMenuTemplate(context());
    expect(template.map((m) => m.label)).toEqual(['&File', '&Edit', '&View', '&Window', '&Help']);
    expect(roles(template)).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit', 'reload', 'minimize', 'about']));
  });

  it('puts the app menu first on macOS and closes windows from File', () => {
    const template = buildMenuTemplate(context({ isMac: true }));
    expect(template[0]?.label).toBe('Paydesk');
    expect(roles([template[0]!])).toEqual(expect.arrayContaining(['about', 'hide', 'quit']));
    expect(roles([template[1]!])).toContain('close');
    expect(roles([template[1]!])).not.toContain('quit');
  });

  it('offers developer tools only when not packaged', () => {
    expect(roles(buildMenuTemplate(context({ isPackaged: true })))).not.toContain('toggleDevTools');
    expect(roles(buildMenuTemplate(context({ isPackaged: false })))).toEqual(expect.arrayContaining(['toggleDevTools', 'forceReload']));
  });

  it('routes its own items to the given actions', () => {
    const ctx = context();
    const template = buildMenuTemplate(ctx);
    const click = (label: string) => (byLabel(template, label)?.click as () => void)();
    click('Open Back Office in Browser');
    click('API Reference');
    click('Show Data Folder');
    expect(ctx.openInBrowser).toHaveBeenCalledTimes(1);
    expect(ctx.openApiDocs).toHaveBeenCalledTimes(1);
    expect(ctx.showDataFolder).toHaveBeenCalledTimes(1);
  });

  it('File → Server Connection says the app uses this computer and offers to connect (embedded, the default)', () => {
    const ctx = context();
    const template = buildMenuTemplate(ctx);
    expect(byLabel(template, 'Using this computer (embedded server)')).toMatchObject({ enabled: false });
    expect(byLabel(template, 'Use This Computer (Embedded)')).toMatchObject({ enabled: false });
    (byLabel(template, 'Connect to a Server…')?.click as () => void)();
    expect(ctx.connectToServer).toHaveBeenCalledTimes(1);
    expect(byLabel(template, 'Show Data Folder')).toBeDefined();
  });

  it('in client mode names the central server, offers the way back, and has no data folder to show', () => {
    const ctx = context({ connection: { mode: 'client', serverUrl: 'https://paydesk.bank.example' } });
    const template = buildMenuTemplate(ctx);
    expect(byLabel(template, 'Connected to paydesk.bank.example')).toMatchObject({ enabled: false });
    expect(byLabel(template, 'Connect to Another Server…')).toBeDefined();
    const back = byLabel(template, 'Use This Computer (Embedded)');
    expect(back).toMatchObject({ enabled: true });
    (back?.click as () => void)();
    expect(ctx.useEmbedded).toHaveBeenCalledTimes(1);
    expect(byLabel(template, 'Show Data Folder')).toBeUndefined();
  });

  it('installs the template as the application menu', () => {
    installApplicationMenu(context());
    expect(buildFromTemplate).toHaveBeenCalledTimes(1);
    expect(setApplicationMenu).toHaveBeenCalledWith(buildFromTemplate.mock.results[0]?.value);
  });
});
