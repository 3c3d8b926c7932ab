import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

const ROOT = resolve(__dirname, '../..');
const BUNDLE = join(ROOT, 'out/server/main.cjs');

/**
 * What the Containerfile's image holds, checked without pulling a base image: the production
 * tree (`npm ci --omit=dev`, as the image's deps stage runs it) in a temp folder, with
 * out/server, out/renderer and the three start scripts beside it, started with no development
 * dependency present.
 *
 * The install runs with --ignore-scripts, and the test asserts that the only install script in
 * the tree is better-sqlite3's (allowScripts in package.json allows exactly that one). The image
 * then compiles it (`npm rebuild better-sqlite3`, 4.5 minutes on a 2-core build machine); here the
 * same version's addon already compiled by this checkout's `npm ci` is copied in instead, so the
 * test stays within seconds.
 */
describe('the production tree (Containerfile)', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-prod-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(!existsSync(BUNDLE))('installs the runtime dependencies only and starts the server from them', async () => {
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    const ci = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, encoding: 'utf8', timeout: 180_000, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(ci.status, ci.stderr).toBe(0);

    // No development dependency in the tree: no build tools, test runners, Electron or tsx.
    for (const dev of ['tsx', 'esbuild', 'electron', 'vite', 'vitest', 'typescript', '@playwright/test', 'react', 'eslint']) {
      expect(existsSync(join(dir, 'node_modules', dev)), `${dev} is in the production tree`).toBe(false);
    }
    // The only install script left to run is the native SQLite module's.
    const withScripts = JSON.parse(spawnSync('npm', ['query', ':attr(scripts, [install]), :attr(scripts, [postinstall]), :attr(scripts, [preinstall])'], { cwd: dir, encoding: 'utf8' }).stdout || '[]') as Array<{ name: string }>;
    expect(withScripts.map((p) => p.name)).toEqual(['better-sqlite3']);
    const allow = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> }).allowScripts;
    expect(Object.entries(allow).filter(([, ok]) => ok).map(([name]) => name)).toEqual(['better-sqlite3']);

    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    mkdirSync(join(dir, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    cpSync(join(ROOT, addon), join(dir, addon));
    for (const part of ['out/server', 'out/renderer', 'scripts/serve.mjs', 'scripts/run-bundle.mjs', 'scripts/server-node-flags.mjs']) {
      cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    }

    const dataDir = join(dir, 'data');
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/serve.mjs', 'serve'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const url = await new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no listening line within 60 s:\n${out}`)), 60_000);
        child.stdout.on('data', () => {
          const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            done(m[1]!);
          }
        });
        void exited.then((code) => fail(new Error(`exited ${code} before listening:\n${out}`)));
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const page = await fetch(`${url}/backoffice/`);
      expect(page.status).toBe(200);
      expect(out).not.toContain('running from source');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
