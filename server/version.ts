import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version } from '../package.json';

/**
 * Which build this process runs, for every place an operator asks during a rolling upgrade:
 * `/healthz`, the base fields of every log line, `npm run admin -- --version`, the back office's
 * About line and the `paydesk_build_info` metric.
 *
 * The version is package.json's. The commit is fixed into the bundle by scripts/build-server.mjs
 * (`process.env.PAYDESK_BUILD_COMMIT` is replaced by a string there); run from source it is
 * asked of git once; `PAYDESK_COMMIT` names it where neither knows (an image built from a
 * tarball). `unknown` when nothing does.
 */
export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
}

let cached: BuildInfo | undefined;

function gitCommit(): string | null {
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    const out = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2_000 }).trim();
    return /^[0-9a-f]{7,40}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const fixed = process.env.PAYDESK_BUILD_COMMIT; // a literal in the bundle
  const given = process.env.PAYDESK_COMMIT;
  const commit = (given && /^[0-9A-Za-z._-]{1,64}$/.test(given) ? given : null) ?? (fixed || null) ?? gitCommit() ?? 'unknown';
  cached = Object.freeze({ version, commit });
  return cached;
}
