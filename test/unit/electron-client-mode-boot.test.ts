import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { startServer, type RunningServer } from '../../server/runtime';
import { bootDir, bootMain, ensureFreshBuild, root, type BootResult } from '../support/electron-boot';

/**
 * The desktop app as a client of a central Paydesk (docs/desktop.md), booted from the built bundle
 * with Electron faked (test/support/electron-boot.ts). The "central server" is a real Paydesk on
 * a loopback port (plain http is accepted for loopback only).
 */
const writeSettings = (work: string, connection: unknown) => {
  mkdirSync(join(work, 'Paydesk'), { recursive: true });
  writeFileSync(join(work, 'Paydesk', 'paydesk-settings.json'), JSON.stringify({ connection }));
};

describe('client mode: connected to a central server', () => {
  let central: RunningServer;
  let centralDir: string;
  let work: string;
  let boot: BootResult;
  const OTHER = 'http://127.0.0.1:9';

  beforeAll(async () => {
    ensureFreshBuild();
    centralDir = bootDir();
    central = await startServer(loadConfig({ DATA_DIR: centralDir, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0' }));
    work = bootDir();
    writeSettings(work, { mode: 'client', serverUrl: `${central.url}/backoffice/` });
    boot = await bootMain(work, { probeOrigins: [new URL(central.url).origin, OTHER, 'https://evil.example'] });
  }, 90_000);

  afterAll(async () => {
    await central?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(centralDir, { recursive: true, force: true });
  });

  it('does not start the embedded server and keeps no data on this computer', () => {
    expect(boot.stdout).not.toMatch(/paydesk listening on/);
    expect(boot.stdout).toContain(`paydesk: client of ${new URL(central.url).origin}`);
    expect(existsSync(join(work, 'Paydesk', 'data'))).toBe(false);
    expect(readdirSync(join(work, 'Paydesk'))).toEqual(['paydesk-settings.json']);
  });

  it('loads the back office from the central server', () => {
    const [load] = boot.find('loadURL');
    expect(load).toMatchObject({ url: `${new URL(central.url).origin}/backoffice/`, status: 200, hasRoot: true });
    expect(String(load?.csp)).toContain("script-src 'self'");
  });

  it('gives every guard the central origin, and that origin only', () => {
    const origin = new URL(central.url).origin;
    const probes = Object.fromEntries(boot.find('probe').map((p) => [p.origin, p]));
    expect(probes[origin]).toMatchObject({
      cameraGranted: true,
      navigationAllowed: true,
      ipc: { mode: 'client', serverUrl: origin },
      cspAdded: true,
    });
    for (const other of [OTHER, 'https://evil.example']) {
      expect(probes[other]).toMatchObject({ cameraGranted: false, navigationAllowed: false, cspAdded: false });
      expect((probes[other]?.ipc as { refused?: string }).refused).toMatch(/sender is not the back office/);
    }
  });

  it('names the server in the menu and hides the data folder', () => {
    const [menu] = boot.find('menu');
    expect(menu?.file).toContain('Server Connection');
    expect(menu?.file).not.toContain('Show Data Folder');
  });

  it('quits at once (no server to stop) and exits 0', () => {
    expect(boot.find('quit')).toEqual([{ event: 'quit', attempt: 1, prevented: false }]);
    expect(boot.find('errorBox')).toEqual([]);
    expect(boot.exitCode).toBe(0);
  });
});

describe('client mode: the central server does not answer', () => {
  let work: string;
  let boot: BootResult;
  beforeAll(async () => {
    ensureFreshBuild();
    work = bootDir();
    // PAYDESK_SERVER_URL (IT's managed environment) wins over the file; port 9 (discard) refuses.
    boot = await bootMain(work, { env: { PAYDESK_SERVER_URL: 'http://127.0.0.1:9' } });
  }, 90_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('shows "Server unreachable — reconnecting" in the window instead of a blank page, and starts no server', () => {
    const loads = boot.find('loadURL');
    expect(loads[0]).toMatchObject({ url: 'http://127.0.0.1:9/backoffice/' });
    expect(loads[0]?.failed).toBeTruthy();
    expect(loads[1]).toMatchObject({ url: 'data:' });
    expect(String(loads[1]?.text)).toContain('Server unreachable — reconnecting');
    expect(String(loads[1]?.text)).toContain('http://127.0.0.1:9');
    expect(boot.stdout).not.toMatch(/paydesk listening on/);
    expect(existsSync(join(work, 'Paydesk', 'data'))).toBe(false);
  });
});

describe('client mode: a refused address', () => {
  it.each([
    ['an http:// address to another machine in the settings file', { settings: { mode: 'client', serverUrl: 'http://paydesk.bank.example' } }, /must use https:\/\//],
    ['an http:// address to another machine in PAYDESK_SERVER_URL', { env: { PAYDESK_SERVER_URL: 'http://10.1.2.3:4610' } }, /PAYDESK_SERVER_URL: .*must use https:\/\//],
    ['a settings file that is not JSON', { raw: '{ "connection": ' }, /not valid JSON/],
  ])('%s stops the launch with a message, never falling back to a local database', async (_label, given, message) => {
    const work = bootDir();
    try {
      if ('settings' in given) writeSettings(work, given.settings);
      if ('raw' in given) {
        mkdirSync(join(work, 'Paydesk'), { recursive: true });
        writeFileSync(join(work, 'Paydesk', 'paydesk-settings.json'), given.raw);
      }
      const boot = await bootMain(work, 'env' in given ? { env: given.env } : {});
      const [box] = boot.find('errorBox');
      expect(box?.title).toBe('Paydesk could not start');
      expect(String(box?.body)).toMatch(message);
      expect(boot.find('window')).toEqual([]);
      expect(boot.exitCode).toBe(1);
      expect(existsSync(join(work, 'Paydesk', 'data'))).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('npm start headless with PAYDESK_SERVER_URL', () => {
  const start = (url: string) =>
    spawnSync(process.execPath, [join(root, 'scripts/start.mjs')], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PAYDESK_HEADLESS: '1', PAYDESK_SERVER_URL: url },
      timeout: 20_000,
    });

  it('starts no local server: it names the central back office and exits 0', () => {
    const run = start('https://paydesk.bank.example/backoffice/');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('client of https://paydesk.bank.example; no local server is started');
    expect(run.stdout).toContain('open the back office in a browser: https://paydesk.bank.example/backoffice/');
    expect(run.stdout).not.toMatch(/listening on/);
  });

  it('refuses http:// to another machine', () => {
    const run = start('http://paydesk.bank.example');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PAYDESK_SERVER_URL must use https://');
  });
});
