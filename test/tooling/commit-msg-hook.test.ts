import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'paydesk-hook-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });

/** Runs the hook script on a message, as git does (the message in a file). */
function check(message: string): { status: number | null; stderr: string } {
  const file = join(tempDir(), 'COMMIT_EDITMSG');
  writeFileSync(file, message);
  const r = spawnSync('sh', [join(root, '.githooks', 'commit-msg'), file], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('commit-msg hook (.githooks/commit-msg, CONTRIBUTING.md)', () => {
  it('accepts a subject of exactly 72 characters with its evidence in the body', () => {
    expect(check(`${'a'.repeat(72)}\n\nRan: npm run lint (clean).\n`).status).toBe(0);
  });

  it('counts characters, not bytes: 72 accented or arrow characters pass', () => {
    expect(check(`${'é→'.repeat(36)}\n`).status).toBe(0);
  });

  it('rejects a subject of 73 characters, naming the length and the limit', () => {
    const r = check(`${'a'.repeat(73)}\n\nbody\n`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('73 characters, over 72');
  });

  it('reads the subject past comment lines and leading blank lines, as git will keep it', () => {
    expect(check(`# Please enter the commit message\n\n${'b'.repeat(60)}\n# ${'c'.repeat(100)}\n`).status).toBe(0);
    expect(check(`# comment\n\n${'b'.repeat(80)}\n`).status).toBe(1);
  });

  it('rejects a body that starts on the line after the subject', () => {
    const r = check('docs: short subject\nbody straight after\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('blank line');
  });

  it('stops a real git commit whose subject is too long once install-hooks has run', () => {
    const repo = tempDir();
    expect(git(repo, 'init', '-q').status).toBe(0);
    mkdirSync(join(repo, 'scripts'));
    mkdirSync(join(repo, '.githooks'));
    for (const f of ['scripts/commit-msg.mjs', 'scripts/install-hooks.mjs', '.githooks/commit-msg']) copyFileSync(join(root, f), join(repo, f));
    spawnSync('chmod', ['+x', join(repo, '.githooks/commit-msg')]);
    const installed = spawnSync(process.execPath, [join(repo, 'scripts/install-hooks.mjs')], { cwd: repo, encoding: 'utf8' });
    expect(installed.status).toBe(0);
    expect(git(repo, 'config', 'core.hooksPath').stdout.trim()).toBe('.githooks');
    writeFileSync(join(repo, 'a.txt'), 'a');
    git(repo, 'add', 'a.txt');
    const long = git(repo, 'commit', '-q', '-m', 'x'.repeat(73));
    expect(long.status).not.toBe(0);
    expect(long.stderr).toContain('over 72');
    expect(git(repo, 'commit', '-q', '-m', 'add a.txt', '-m', 'Ran: nothing.').status).toBe(0);
    expect(git(repo, 'log', '--format=%s').stdout.trim()).toBe('add a.txt');
  });

  it('install-hooks does nothing and succeeds outside a git checkout', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(root, 'scripts/install-hooks.mjs'), join(dir, 'scripts/install-hooks.mjs'));
    const r = spawnSync(process.execPath, [join(dir, 'scripts/install-hooks.mjs')], { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: tmpdir() } });
    expect(r.status).toBe(0);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toContain('node scripts/install-hooks.mjs');
  });
});
