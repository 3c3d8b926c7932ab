import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Boots the built main-process bundle (out/main/index.js) in plain Node.js with the `electron`
 * module replaced by a recording fake (the Electron binary cannot run here): what the unit tests
 * cannot check — the bundle's imports resolve as native ES modules, which server (if any) starts,
 * what the window loads, and which origin every guard was given.
 */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
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
export function ensureFreshBuild(): void {
  const sources = Math.max(newestMtime(join(root, 'electron')), newestMtime(join(root, 'server')));
  const bundles = [mainBundle, join(root, 'out/preload/index.cjs'), join(root, 'out/preload/connect.cjs')];
  if (bundles.every((b) => existsSync(b) && statSync(b).mtimeMs >= sources)) return;
  const cli = join(root, 'node_modules/electron-vite/bin/electron-vite.js');
  const result = spawnSync(process.execPath, [cli, 'build'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`electron-vite build failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * The fake. After the window's first load it probes each origin in FAKE_PROBE_ORIGINS against the
 * guards the app installed (camera on the scan route, in-window navigation, the IPC bridge, the
 * CSP on documents) and records each decision, then quits. A load that fails is reported to the
 * app as Chromium does (did-fail-load), and data: pages are recorded without fetching.
 */
const FAKE_ELECTRON = `
import { EventEmitter } from 'node:events';
const record = (event, data = {}) => process.stdout.write('FAKE ' + JSON.stringify({ event, ...data }) + '\\n');
const appData = process.env.FAKE_APP_DATA;
const probeOrigins = JSON.parse(process.env.FAKE_PROBE_ORIGINS || '[]');
const paths = { appData, userData: appData + '/Electron' };
let quits = 0;
const emitter = new EventEmitter();
const installed = { permission: null, headers: null, ipc: new Map(), contents: [] };
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
  relaunch: () => record('relaunch'),
  quit() {
    quits += 1;
    let prevented = false;
    emitter.emit('before-quit', { preventDefault: () => { prevented = true; } });
    record('quit', { attempt: quits, prevented });
    if (!prevented) process.exit(0);
  },
  exit: (code) => { record('exit', { code }); process.exit(code); },
});
async function probe(origin) {
  const page = origin + '/backoffice/teller/scan';
  let granted = null;
  installed.permission?.({}, 'media', (ok) => { granted = ok; }, { requestingUrl: page, isMainFrame: true, mediaTypes: ['video'] });
  let navigationAllowed = true;
  for (const contents of installed.contents) for (const fn of contents.listeners('will-navigate')) fn({ url: origin + '/backoffice/', preventDefault: () => { navigationAllowed = false; } });
  let ipc;
  try { ipc = await installed.ipc.get('paydesk:connection')({ senderFrame: { url: page, parent: null }, sender: {} }); } catch (err) { ipc = { refused: err.message }; }
  let csp = null;
  installed.headers?.({ url: origin + '/backoffice/', resourceType: 'mainFrame', responseHeaders: {} }, (r) => { csp = r.responseHeaders['Content-Security-Policy'] ?? null; });
  record('probe', { origin, cameraGranted: granted, navigationAllowed, ipc, cspAdded: !!csp });
}
export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    record('window', { options });
    this.webContents = new EventEmitter();
    this.webContents.setWindowOpenHandler = () => {};
    installed.contents.push(this.webContents);
    emitter.emit('web-contents-created', {}, this.webContents);
  }
  async loadURL(url) {
    if (url.startsWith('data:')) {
      record('loadURL', { url: 'data:', text: decodeURIComponent(url.slice(url.indexOf(',') + 1)).replace(/<[^>]+>/g, ' ').replace(/\\s+/g, ' ') });
      setTimeout(() => app.quit(), 50);
      return;
    }
    let res;
    try {
      res = await fetch(url);
    } catch (err) {
      record('loadURL', { url, failed: String(err.cause?.code ?? err.message) });
      this.webContents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', url, true);
      return;
    }
    record('loadURL', { url, status: res.status, csp: res.headers.get('content-security-policy'), hasRoot: (await res.text()).includes('id="root"') });
    for (const origin of probeOrigins) await probe(origin);
    setTimeout(() => app.quit(), 50);
  }
  isDestroyed() { return false; }
  isMinimized() { return false; }
  restore() {}
  focus() {}
  show() {}
}
const noop = () => {};
export const session = { defaultSession: {
  setPermissionRequestHandler: (fn) => { installed.permission = fn; record('permissionRequestHandler'); },
  setPermissionCheckHandler: () => record('permissionCheckHandler'),
  setDevicePermissionHandler: noop,
  webRequest: { onHeadersReceived: (fn) => { installed.headers = fn; record('onHeadersReceived'); } },
} };
export const ipcMain = { handle: (channel, fn) => { installed.ipc.set(channel, fn); record('ipc', { channel }); } };
export const Menu = { buildFromTemplate: (t) => t, setApplicationMenu: (t) => record('menu', { items: t.length, file: t[0].submenu.map((i) => i.label ?? i.role ?? i.type) }) };
export const shell = { openExternal: noop, openPath: noop };
export const net = { fetch: (...args) => fetch(...args) };
export const dialog = {
  showErrorBox: (title, body) => record('errorBox', { title, body }),
  showMessageBox: async () => ({ response: 1 }),
};
export default { app, BrowserWindow, session, ipcMain, Menu, shell, net, dialog };
`;

export type FakeEvent = { event: string } & Record<string, unknown>;

export interface BootResult {
  events: FakeEvent[];
  stdout: string;
  exitCode: number | null;
  find(name: string): FakeEvent[];
}

/** A temp folder to boot in: the fake's appData (userData is `<work>/Paydesk`). */
export function bootDir(): string {
  return mkdtempSync(join(tmpdir(), 'paydesk-main-boot-'));
}

/** Runs the bundle once in `work` (from bootDir()), until it exits; `env` is added to a clean environment. */
export async function bootMain(work: string, opts: { env?: Record<string, string>; probeOrigins?: string[] } = {}): Promise<BootResult> {
  const fake = join(work, 'electron.mjs');
  writeFileSync(fake, FAKE_ELECTRON);
  writeFileSync(
    join(work, 'hooks.mjs'),
    `export async function resolve(spec, ctx, next) { return spec === 'electron' ? { url: ${JSON.stringify(pathToFileURL(fake).href)}, shortCircuit: true } : next(spec, ctx); }`,
  );
  writeFileSync(join(work, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});`);

  const env: NodeJS.ProcessEnv = { ...process.env, FAKE_APP_DATA: work, LOG_LEVEL: 'warn', FAKE_PROBE_ORIGINS: JSON.stringify(opts.probeOrigins ?? []), ...opts.env };
  for (const name of ['DATA_DIR', 'PORT', 'PAYDESK_RENDERER_DIR', 'PAYDESK_SERVER_URL', 'DATABASE_URL']) if (!opts.env?.[name]) delete env[name];
  const child = spawn(process.execPath, ['--import', pathToFileURL(join(work, 'register.mjs')).href, mainBundle], { cwd: work, env });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exitCode = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
  const events = stdout
    .split('\n')
    .filter((l) => l.startsWith('FAKE '))
    .map((l) => JSON.parse(l.slice(5)) as FakeEvent);
  return { events, stdout, exitCode, find: (name) => events.filter((e) => e.event === name) };
}
