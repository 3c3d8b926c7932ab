import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootDir, bootMain, ensureFreshBuild, root, type FakeEvent } from '../support/electron-boot';

/**
 * Boots the built main-process bundle (out/main/index.js) in plain Node.js with the `electron`
 * module replaced by a recording fake (test/support/electron-boot.ts; the Electron binary cannot
 * run here). This checks what the unit tests cannot: that the bundle's imports resolve as native
 * ES modules, that the embedded server starts in userData/data and serves the back office the
 * window loads, that the preload path points at a real file, and that quitting stops the server
 * before the app exits. Client mode (a central server): electron-client-mode-boot.test.ts.
 */
describe('desktop main bundle, booted with a fake Electron', () => {
  let work: string;
  let events: FakeEvent[] = [];
  let stdout = '';
  let exitCode: number | null = null;

  beforeAll(async () => {
    ensureFreshBuild();
    work = bootDir();
    const result = await bootMain(work);
    ({ events, stdout, exitCode } = result);
  }, 90_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const find = (name: string) => events.filter((e) => e.event === name);

  it('starts the embedded server on loopback with its data in userData/data', () => {
    expect(stdout).toMatch(/paydesk listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(find('setPath')).toContainEqual({ event: 'setPath', key: 'userData', value: join(work, 'Paydesk') });
    expect(existsSync(join(work, 'Paydesk', 'data', 'paydesk.sqlite'))).toBe(true);
    expect(find('enableSandbox')).toHaveLength(1);
  });

  it('installs the guards, the IPC channels and the menu before opening the window', () => {
    const order = events.map((e) => e.event);
    for (const step of ['permissionRequestHandler', 'permissionCheckHandler', 'onHeadersReceived', 'ipc', 'menu']) {
      expect(order.indexOf(step), step).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(step), step).toBeLessThan(order.indexOf('window'));
    }
    expect(find('ipc').map((e) => e.channel)).toEqual([
      'paydesk:print-document',
      'paydesk:app-version',
      'paydesk:open-external',
      'paydesk:connection',
      'paydesk:connect-to-server',
    ]);
  });

  it('opens a sandboxed window whose preload file exists, on the served back office', () => {
    const [window] = find('window');
    const prefs = (window?.options as { webPreferences: Record<string, unknown> }).webPreferences;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(existsSync(String(prefs.preload))).toBe(true);
    const [load] = find('loadURL');
    expect(load?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/backoffice\/$/);
    expect(load).toMatchObject({ status: 200, hasRoot: true });
    expect(String(load?.csp)).toContain("script-src 'self'");
  });

  it('builds each preload as one file that requires only electron (a sandboxed preload can load nothing else)', () => {
    for (const name of ['index.cjs', 'connect.cjs']) {
      const code = readFileSync(join(root, 'out/preload', name), 'utf8');
      expect([...code.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]), name).toEqual(['electron']);
    }
  });

  it('is embedded by default: the menu offers to connect to a server and shows the data folder', () => {
    const [menu] = find('menu');
    expect(menu?.file).toEqual(expect.arrayContaining(['Server Connection', 'Show Data Folder']));
  });

  it('stops the server before letting the app quit, then exits 0', () => {
    expect(find('quit')).toEqual([
      { event: 'quit', attempt: 1, prevented: true },
      { event: 'quit', attempt: 2, prevented: false },
    ]);
    expect(find('errorBox')).toEqual([]);
    expect(exitCode).toBe(0);
  });
});
