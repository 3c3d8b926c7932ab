// Run by `npm install` / `npm ci` (the prepare script): points git at the repository's hooks
// (.githooks/commit-msg checks the commit message, CONTRIBUTING.md). Outside a git checkout (an
// unpacked tarball, a build image without git) it does nothing and never fails the install.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const inside = execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  if (inside === 'true' && existsSync(`${top}/.githooks/commit-msg`)) {
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: top, stdio: 'ignore' });
  }
} catch {
  // not a git checkout, or no git: nothing to install
}
