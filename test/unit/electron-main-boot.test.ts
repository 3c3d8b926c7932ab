import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Boots the built main-process bundle (out/main/index.js) in plain Node.js with the `electron`
 * module replaced by a recording fake (the Electron binary cannot run here). This checks what
 * the unit tests cannot: that the bundle's imports resolve as native ES modules, that the
 * embedded server starts in userData/data and serves the back office the window loads, that the
 * preload path points at a real file, and that quitting stops the server before the app exits.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const mainBundle = join(root, 'out/main/index.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds out/ when it is missing or older than the main process's sources. */
function ensureFreshBuild(): void {
  const sources = Math.max(newestMtime(join(root, 'electron')), newestMtime(join(root, 'server')));
  if (existsSync(mainBundle) && statSync(mainBundle).mtimeMs >= sources) return;
  const cli = join(root, 'node_modules/electron-vite/bin/electron-vite.js');
  const result = spawnSync(process.execPath, [cli, 'build'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`electron-vite build failed:\n${result.stdout}\n${result.stderr}`);
}

const FAKE_ELECTRON = `
import { EventEmitter } from 'node:events';
const record = (event, data = {}) => process.stdout.write('FAKE ' + JSON.stringify({ event, ...data }) + '\\n');
const appData = process.env.FAKE_APP_DATA;
const paths = { appData, userData: appData + '/Electron' };
let quits = 0;
const emitter = new EventEmitter();
export const app = Object.assign(emitter, {
  setName: (name) => record('setName', { name }),
  setPath: (key, value) => { paths[key] = value; record('setPath', { key, value }); },
  getPath: (key) => paths[key],
  enableSandbox: () => record('enableSandbox'),
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  getVersion: () => '9.9.9',
  getName: () => 'Paydesk',
  isPackaged: false,
  quit() {
    quits += 1;
    let prevented = false;
    emitter.emit('before-quit', { preventDefault: () => { prevented = true; } });
    record('quit', { attempt: quits, prevented });
    if (!prevented) process.exit(0);
  },
  exit: (code) => { record('exit', { code }); process.exit(code); },
});
export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    record('window', { options });
    this.webContents = new EventEmitter();
    this.webContents.setWindowOpenHandler = () => {};
    emitter.emit('web-contents-created', {}, this.webContents);
  }
  async loadURL(url) {
    const res = await fetch(url);
    record('loadURL', { url, status: res.status, csp: res.headers.get('content-security-policy'), hasRoot: (await res.text()).includes('id="root"') });
    setTimeout(() => app.quit(), 50);
  }
  isMinimized() { return false; }
  restore() {}
  focus() {}
  show() {}
}
const noop = () => {};
export const session = { defaultSession: {
  setPermissionRequestHandler: () => record('permissionRequestHandler'),
  setPermissionCheckHandler: () => record('permissionCheckHandler'),
  setDevicePermissionHandler: noop,
  webRequest: { onHeadersReceived: () => record('onHeadersReceived') },
} };
export const ipcMain = { handle: (channel) => record('ipc', { channel }) };
export const Menu = { buildFromTemplate: (t) => t, setApplicationMenu: (t) => record('menu', { items: t.length }) };
export const shell = { openExternal: noop, openPath: noop };
export const dialog = { showErrorBox: (title, body) => record('errorBox', { title, body }) };
export default { app, BrowserWindow, session, ipcMain, Menu, shell, dialog };
`;

type FakeEvent = { event: string } & Record<string, unknown>;

describe('desktop main bundle, booted with a fake Electron', () => {
  let work: string;
  let events: FakeEvent[] = [];
  let stdout = '';
  let exitCode: number | null = null;

  beforeAll(async () => {
    ensureFreshBuild();
    work = mkdtempSync(join(tmpdir(), 'paydesk-main-boot-'));
    const fake = join(work, 'electron.mjs');
    writeFileSync(fake, FAKE_ELECTRON);
    writeFileSync(
      join(work, 'hooks.mjs'),
      `export async function resolve(spec, ctx, next) { return spec === 'electron' ? { url: ${JSON.stringify(pathToFileURL(fake).href)}, shortCircuit: true } : next(spec, ctx); }`,
    );
    writeFileSync(join(work, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});`);

    const env: NodeJS.ProcessEnv = { ...process.env, FAKE_APP_DATA: work, LOG_LEVEL: 'warn' };
    delete env.DATA_DIR;
    delete env.PORT;
    delete env.PAYDESK_RENDERER_DIR;
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(work, 'register.mjs')).href, mainBundle], { cwd: work, env });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    exitCode = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        done(code);
      });
    });
    events = stdout
      .split('\n')
      .filter((l) => l.startsWith('FAKE '))
      .map((l) => JSON.parse(l.slice(5)) as FakeEvent);
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
    expect(find('ipc').map((e) => e.channel)).toEqual(['paydesk:print-document', 'paydesk:app-version', 'paydesk:open-external']);
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

  it('stops the server before letting the app quit, then exits 0', () => {
    expect(find('quit')).toEqual([
      { event: 'quit', attempt: 1, prevented: true },
      { event: 'quit', attempt: 2, prevented: false },
    ]);
    expect(find('errorBox')).toEqual([]);
    expect(exitCode).toBe(0);
  });
});
