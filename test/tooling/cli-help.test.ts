import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { version } from '../../package.json';
import { runAdmin } from '../support/cli';

const ROOT = resolve(__dirname, '../..');

/** `node --import tsx server/main.ts …` (what `npm run serve` runs), for its flags only. */
function serveWith(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout }));
  });
}

describe('CLI help, --version and doctor', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'paydesk-cli-help-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('-h lists every command with a description, exit 0; a command\'s --help shows its usage and examples without running it', async () => {
    const all = await runAdmin(dataDir, ['-h']);
    expect(all.code, all.stderr).toBe(0);
    for (const name of ['integration:create', 'db:prune', 'db:migrate', 'search:rebuild', 'webhooks:tail', 'doctor']) {
      expect(all.stdout, name).toMatch(new RegExp(`^  ${name} +[A-Z][^\\n]{15,}$`, 'm'));
    }
    // Every command has its one-line description (a table entry without one would print "undefined").
    const listed = all.stdout.slice(all.stdout.indexOf('commands:\n') + 'commands:\n'.length).trimEnd().split('\n');
    expect(listed.length).toBeGreaterThanOrEqual(18);
    for (const line of listed) expect(line).toMatch(/^ {2}[a-z:-]+ +[A-Z][^\n]{15,}$/);
    expect(all.stdout).not.toContain('undefined');
    const prune = await runAdmin(dataDir, ['db:prune', '--help']);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout).toContain('usage: npm run admin -- db:prune [--dry-run] [--json]');
    expect(prune.stdout).toMatch(/examples:\n {2}npm run admin -- db:prune --dry-run/);
  });

  it('--version names the package version and the commit', async () => {
    const v = await runAdmin(dataDir, ['--version', '--json']);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toEqual({ version, commit: expect.stringMatching(/^([0-9a-f]{7,40}|unknown)$/), node: process.versions.node });
  });

  it('serve --help explains and exits 0 instead of starting a server', async () => {
    const r = await serveWith(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run serve');
    expect(r.stdout).not.toContain('listening on');
  });

  it('doctor reports three bad variables at once, in a table, and exits 1', async () => {
    const r = await runAdmin(dataDir, ['doctor'], undefined);
    expect(r.code, r.stderr).toBe(0); // a fresh, valid DATA_DIR: warnings at most
    const bad = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', 'doctor'], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, PORT: 'eighty', DATABASE_URL: 'mysql://db/paydesk', SHUTDOWN_DRAIN_MS: '-5' },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', (code) => done({ code, stdout }));
    });
    expect(bad.code).toBe(1);
    const failed = bad.stdout.split('\n').filter((l) => l.startsWith('FAIL  config'));
    expect(failed).toHaveLength(3);
    expect(bad.stdout).toMatch(/^FAIL {2}config +PORT: must be a TCP port number/m);
    expect(bad.stdout).toMatch(/^FAIL {2}config +DATABASE_URL: must be a postgres:\/\//m);
    expect(bad.stdout).toMatch(/^FAIL {2}config +SHUTDOWN_DRAIN_MS: must be 0 or more/m);
    // The rest is still checked, with the bad variables' defaults.
    expect(bad.stdout).toMatch(/^(OK|WARN) +data folder/m);
    expect(bad.stdout).toMatch(/^OK +free disk/m);
  });

  it('doctor --json prints one object with every check', async () => {
    const r = await runAdmin(dataDir, ['doctor', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; version: string; checks: Array<{ name: string; status: string }> };
    expect(out.ok).toBe(true);
    expect(out.version).toBe(version);
    expect(out.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['node', 'config', 'database', 'redis', 'data folder', 'free disk']));
  });
});
