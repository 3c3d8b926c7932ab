#!/usr/bin/env node
// `npm start`: the desktop app (Electron window + embedded server) when the Electron binary is
// there; otherwise the same server headless, with the back-office URL to open in a browser.
// Never crashes for want of Electron: machines that cannot download it still get the app.
//
// PAYDESK_HEADLESS=1 forces headless mode. DATA_DIR, PORT, HOST, … are read as `npm run serve`
// reads them (headless DATA_DIR defaults to ./.paydesk; the desktop app's to the OS app-data folder).
// PAYDESK_SERVER_URL makes the desktop app a client of that central Paydesk (docs/desktop.md);
// headless, there is then nothing to run here: it prints the back office's address and exits.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const say = (line) => process.stdout.write(`paydesk: ${line}\n`);

/**
 * Where the Electron binary is, or why it is not usable. Reads what the electron package's own
 * index.js reads, without requiring it: that would try to download the binary.
 */
function findElectron() {
  let pkgDir;
  try {
    pkgDir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { missing: 'the electron package is not installed' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, relative || 'electron') : relative ? join(pkgDir, 'dist', relative) : '';
  if (!binary || !existsSync(binary)) return { missing: 'the Electron binary is missing (it could not be downloaded on this machine)' };
  return { binary };
}

function headlessReason() {
  if (/^(1|true|yes)$/i.test(process.env.PAYDESK_HEADLESS ?? '')) return 'PAYDESK_HEADLESS is set';
  const electron = findElectron();
  if (electron.missing) return electron.missing;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no graphical display (DISPLAY is not set)';
  return null;
}

/** Builds out/ with electron-vite when the files this mode needs are missing. */
function ensureBuilt(needed) {
  const missing = needed.filter((f) => !existsSync(join(root, f)));
  if (missing.length === 0) return true;
  say(`building the app (missing ${missing.join(', ')}) …`);
  const cli = join(dirname(require.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
  const result = spawnSync(process.execPath, [cli, 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const server = result.status === 0 ? spawnSync(process.execPath, [join(root, 'scripts/build-server.mjs')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] }) : result;
  if (server.status === 0) return true;
  say('the build failed (see above); starting anyway: the pages will say to run `npm run build`.');
  return false;
}

/** Passes SIGINT/SIGTERM to the child and exits with its status. */
function supervise(child, name) {
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.exitCode === null && child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal && signal !== 'SIGINT' && signal !== 'SIGTERM') say(`${name} stopped by ${signal}`);
    process.exit(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1));
  });
}

function browserUrl(listening) {
  if (process.env.PUBLIC_BASE_URL) return `${process.env.PUBLIC_BASE_URL.replace(/\/+$/, '')}/backoffice/`;
  const url = new URL(listening);
  // A wildcard bind is reachable on loopback; that is the address to open on this machine.
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
  return new URL('/backoffice/', url).toString();
}

/**
 * Headless with PAYDESK_SERVER_URL: this machine is a client of a central Paydesk, so starting a
 * local server (and a local database nobody else sees) would be wrong. The same rule as the
 * desktop app (electron/main/connection-settings.ts): https, plain http only to loopback.
 */
function clientHeadless(raw) {
  let url;
  try {
    url = new URL(raw.trim());
  } catch {
    return fail(`PAYDESK_SERVER_URL is not a web address: ${raw}`);
  }
  const loopback = /^(localhost|.*\.localhost|127(\.\d+){3}|\[::1\])$/i.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return fail('PAYDESK_SERVER_URL must use https:// (plain http:// only for this computer)');
  say(`PAYDESK_SERVER_URL is set: this machine is a client of ${url.origin}; no local server is started.`);
  say(`open the back office in a browser: ${new URL('/backoffice/', url.origin).toString()}`);
  process.exit(0);
}

function fail(message) {
  process.stderr.write(`paydesk: ${message}\n`);
  process.exit(1);
}

function runHeadless(reason) {
  if (process.env.PAYDESK_SERVER_URL?.trim()) return clientHeadless(process.env.PAYDESK_SERVER_URL);
  say(`${reason}; running headless — the same app, with the back office in your browser.`);
  ensureBuilt(['out/renderer/backoffice/index.html', 'out/server/main.cjs']);
  const env = { ...process.env, DATA_DIR: process.env.DATA_DIR || join(root, '.paydesk') };
  // What `npm run serve` runs: the prebuilt server bundle, or the source through tsx when stale.
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'scripts/serve.mjs'), 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  child.on('error', (err) => {
    say(`could not start the server: ${err.message}`);
    process.exit(1);
  });
  let announced = false;
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const match = !announced && /listening on (http:\/\/\S+)/.exec(line);
    if (match) {
      announced = true;
      say(`open the back office in a browser: ${browserUrl(match[1])}`);
    }
  });
  supervise(child, 'the server');
}

function runDesktop(binary) {
  ensureBuilt(['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/backoffice/index.html']);
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // set, it would make Electron a plain Node.js
  const child = spawn(binary, [root], { cwd: root, stdio: 'inherit', env });
  child.once('spawn', () => supervise(child, 'Electron'));
  child.once('error', (err) => {
    if (child.pid === undefined) runHeadless(`Electron could not be started (${err.message})`);
  });
}

const reason = headlessReason();
if (reason) runHeadless(reason);
else runDesktop(findElectron().binary);
