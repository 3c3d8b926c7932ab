import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm run serve &` then `kill -TERM <that pid>`, as docs/deployment.md does: the pid is npm's,
 * and the script execs node (no shell in between that dies and leaves node listening), so npm
 * forwards the signal, the server drains, writes its shutdown-complete line and everything
 * exits 0 with nothing left behind.
 */
describe('npm run serve and SIGTERM', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-serve-signal-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('SIGTERM to npm drains the server and exits 0; no node is left listening', async () => {
    const npm = spawn('npm', ['run', '-s', 'serve'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((done) => npm.on('exit', (code) => done(code)));
    const started = await new Promise<{ url: string; pid: number }>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no listening line within 90 s:\n${out}`)), 90_000);
      npm.stdout.on('data', () => {
        const line = out.split('\n').find((l) => l.includes('listening on http://'));
        if (!line) return;
        clearTimeout(timer);
        const parsed = JSON.parse(line) as { url: string; pid: number };
        done(parsed);
      });
    });
    expect(started.pid).not.toBe(npm.pid); // the server is node, a child of npm
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);

    npm.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), 30_000).unref())]);
    await new Promise((r) => setTimeout(r, 500));
    const orphaned = alive(started.pid);
    if (orphaned) process.kill(started.pid, 'SIGKILL'); // never leave it running, whatever the outcome
    expect(orphaned, 'node still running after npm exited').toBe(false);
    expect(code, out).toBe(0);
    const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; signal?: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down: draining requests in flight', 'shutdown complete']));
    expect(lines.find((l) => l.msg === 'shutdown complete')?.signal).toBe('SIGTERM');
    await expect(fetch(`${started.url}/healthz`)).rejects.toThrow();
  });
});
