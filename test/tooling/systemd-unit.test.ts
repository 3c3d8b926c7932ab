import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const UNIT = join(ROOT, 'deploy/systemd/paydesk.service');
const hasAnalyze = !spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).error;

/** The systemd unit: what stops it cleanly and what confines it, and `systemd-analyze verify` where installed. */
describe('deploy/systemd/paydesk.service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const unit = readFileSync(UNIT, 'utf8');
  const value = (key: string) => unit.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1];

  it('starts node itself and stops it with SIGTERM, waiting longer than the longest drain', () => {
    expect(value('ExecStart')).toMatch(/^\/usr\/bin\/node .*scripts\/serve\.mjs serve$/);
    expect(value('ExecStart')).not.toMatch(/\bnpm\b|\bsh\b/);
    expect(value('KillSignal')).toBe('SIGTERM');
    // SHUTDOWN_DRAIN_MS is at most 120 s (server/config.ts), then requests in flight and webhook attempts (30 s).
    expect(Number(value('TimeoutStopSec'))).toBeGreaterThan(150);
  });

  it('is confined: read-only system, no new privileges, its data folder the only writable place', () => {
    for (const [key, want] of [
      ['ProtectSystem', 'strict'],
      ['NoNewPrivileges', 'true'],
      ['PrivateTmp', 'true'],
      ['ProtectHome', 'true'],
      ['ReadWritePaths', '/var/lib/paydesk'],
      ['StateDirectoryMode', '0700'],
      ['User', 'paydesk'],
    ] as const) {
      expect(value(key), key).toBe(want);
    }
  });

  it.skipIf(!hasAnalyze)('passes systemd-analyze verify', () => {
    const copy = join(dir, 'paydesk.service');
    cpSync(UNIT, copy);
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', timeout: 60_000 });
    // Only complaints about this unit count (the host's own units may have theirs).
    const ours = (r.stderr ?? '').split('\n').filter((l) => l.includes('paydesk.service'));
    expect(ours, r.stderr).toEqual([]);
    expect(r.status, r.stderr).toBe(0);
  });

  it.runIf(!hasAnalyze)('notes that systemd-analyze is not installed', () => {
    console.info('systemd-analyze not installed (Debian package systemd): the unit was checked by the tests above only');
  });
});
