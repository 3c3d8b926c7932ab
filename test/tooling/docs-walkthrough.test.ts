import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

/** The ```sh blocks of a document between two markers (a heading, or a line that starts with the end marker). */
export function shellBlocks(doc: string, from: string, to: string | null): string[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const start = text.indexOf(from);
  if (start < 0) throw new Error(`${doc}: no section ${from}`);
  const end = to === null ? text.length : text.indexOf(to, start + from.length);
  const section = text.slice(start, end < 0 ? text.length : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

const postgresUp = await new Promise<boolean>((done) => {
  const socket = connect({ host: '127.0.0.1', port: 5432 });
  socket.setTimeout(1_000);
  socket.once('connect', () => (socket.destroy(), done(true)));
  socket.once('error', () => done(false));
  socket.once('timeout', () => (socket.destroy(), done(false)));
});
const hasTools = ['createdb', 'dropdb', 'curl'].every((tool) => !spawnSync(tool, ['--version'], { encoding: 'utf8' }).error);

/** Runs the blocks as one bash script (their variables carry over), stopping at the first failing command. */
function runBlocks(blocks: string[], replace: Array<[RegExp, string]>, env: Record<string, string>) {
  let script = blocks.join('\n');
  for (const [from, to] of replace) script = script.replace(from, to);
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8', env, timeout: 300_000 });
  return { ...r, script };
}

/** The environment of a fresh shell: nothing of the test runner's that names a database or a port. */
const cleanEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' });

/**
 * The documentation runs as written: docs/deployment.md's walkthrough (two instances on
 * PostgreSQL, a session created on one and paid on the other, both stopped by SIGTERM) and
 * docs/operations.md's backup and restore, extracted from the documents at test time and run by
 * bash with `set -euo pipefail`, on free loopback ports, a database and folders of their own.
 */
describe('docs that run as written', { timeout: 360_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(!postgresUp || !hasTools)('docs/deployment.md: the walkthrough, steps 1 to 8', async () => {
    const blocks = shellBlocks('docs/deployment.md', '## Walkthrough: two instances', '**9. ');
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const [a, b] = [await freePort(), await freePort()];
    const db = `paydesk_docs_${process.pid}_${Date.now().toString(36)}`;
    const work = join(dir, 'pd-deploy');
    let result: ReturnType<typeof runBlocks> | undefined;
    try {
      result = runBlocks(
        blocks,
        [
          [/4711/g, String(a)],
          [/4712/g, String(b)],
          [/paydesk_deploy_check/g, db],
          [/\/tmp\/pd-deploy/g, work],
        ],
        cleanEnv(),
      );
      expect(result.status, `${result.stderr}\n--- a.log\n${readIfThere(join(work, 'a.log'))}\n--- b.log\n${readIfThere(join(work, 'b.log'))}`).toBe(0);
      expect(result.stdout).toContain('"session_status":"success"');
      expect(result.stdout).toMatch(/"brand":"visa"/);
      expect(existsSync(work)).toBe(false); // step 8 cleaned up
    } finally {
      // Whatever failed, nothing is left running or behind.
      for (const name of ['a.pid', 'b.pid']) {
        const pid = Number(readIfThere(join(work, name)).trim());
        if (pid > 0) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
      spawnSync('dropdb', ['-h', '127.0.0.1', '-U', 'postgres', '--if-exists', db], { encoding: 'utf8' });
    }
  });

  it('docs/operations.md: backup, then restore', () => {
    const backup = shellBlocks('docs/operations.md', '## Backup (while the server runs)', '\n## ');
    const restore = shellBlocks('docs/operations.md', '## Restore\n', '\n## ');
    expect(backup).toHaveLength(1);
    expect(restore).toHaveLength(1);
    const data = join(dir, 'srv-paydesk');
    const replace: Array<[RegExp, string]> = [
      [/\/srv\/paydesk-before-restore/g, join(dir, 'before-restore')],
      [/\/srv\/paydesk/g, data],
      [/\/backups/g, join(dir, 'backups')],
    ];
    // A database to back up, made by the CLI as an operator would.
    const seed = spawnSync('npm', ['run', '-s', 'admin', '--', 'integration:create', '--merchant', 'Docs Backup Ltd', '--json'], { cwd: ROOT, encoding: 'utf8', env: { ...cleanEnv(), DATA_DIR: data } });
    expect(seed.status, seed.stderr).toBe(0);
    const saved = runBlocks(backup, replace, cleanEnv());
    expect(saved.status, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout.trim())).toMatchObject({ file: expect.stringContaining(join(dir, 'backups')), pages: expect.any(Number) });
    // Something written after the backup: the restore takes it away again.
    const later = spawnSync('npm', ['run', '-s', 'admin', '--', 'integration:create', '--merchant', 'After Backup Ltd', '--json'], { cwd: ROOT, encoding: 'utf8', env: { ...cleanEnv(), DATA_DIR: data } });
    expect(later.status, later.stderr).toBe(0);
    const restored = runBlocks(restore, replace, cleanEnv());
    expect(restored.status, restored.stderr).toBe(0);
    const list = spawnSync('npm', ['run', '-s', 'admin', '--', 'integration:list', '--json'], { cwd: ROOT, encoding: 'utf8', env: { ...cleanEnv(), DATA_DIR: data } });
    const names = (JSON.parse(list.stdout) as { integrations: Array<{ merchant_name: string }> }).integrations.map((i) => i.merchant_name);
    expect(names).toEqual(['Docs Backup Ltd']);
  });
});

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
