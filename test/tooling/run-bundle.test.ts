import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const runBundleUrl = pathToFileURL(join(__dirname, '..', '..', 'scripts', 'run-bundle.mjs')).href;

/** A CommonJS "bundle" that uses what a module gets (require, module.exports, __filename, __dirname) and prints what it says. */
const bundle = (says: string) => `const path = require('node:path');
function answer() { return ${JSON.stringify(says)}; }
module.exports = { answer };
process.stdout.write(JSON.stringify({ says: answer(), file: path.basename(__filename), dir: __dirname, exported: typeof module.exports.answer }));
`;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'paydesk-run-bundle-'));
  file = join(dir, 'main.cjs');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the bundle as scripts/serve.mjs does, in a fresh node, with PAYDESK_CODE_CACHE=report. */
function run(nodeFlags: string[] = []) {
  const r = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', `import { runBundle } from ${JSON.stringify(runBundleUrl)}; runBundle(${JSON.stringify(file)});`], {
    encoding: 'utf8',
    env: { ...process.env, PAYDESK_CODE_CACHE: 'report' },
  });
  expect(r.status, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as { says: string; file: string; dir: string; exported: string }, cache: /code cache (\w+)/.exec(r.stderr)?.[1] };
}

describe('the server bundle runs with a V8 code cache (scripts/run-bundle.mjs)', () => {
  it('runs the bundle as a CommonJS module, writes its cache at exit, and uses it on the next start', () => {
    writeFileSync(file, bundle('first'));
    const first = run();
    expect(first).toEqual({ out: { says: 'first', file: 'main.cjs', dir, exported: 'function' }, cache: 'none' });
    const written = statSync(`${file}.cache`);
    expect(written.size).toBeGreaterThan(41);
    const second = run();
    expect(second).toEqual({ out: first.out, cache: 'used' });
    // A cache that was used is left as it is.
    expect(statSync(`${file}.cache`).mtimeMs).toBe(written.mtimeMs);
  });

  it('never runs the code cached from another build, even of the same length (V8 itself checks only the length)', () => {
    writeFileSync(file, bundle('first'));
    run();
    writeFileSync(file, bundle('other')); // same length, different code
    expect(readFileSync(file).length).toBe(Buffer.byteLength(bundle('first')));
    expect(run()).toMatchObject({ out: { says: 'other' }, cache: 'stale' });
    // That start wrote the cache of this build.
    expect(run()).toMatchObject({ out: { says: 'other' }, cache: 'used' });
  });

  it('a cache V8 rejects (made under other V8 flags) costs only the compile, and is replaced', () => {
    writeFileSync(file, bundle('flags'));
    run();
    expect(run(['--max-semi-space-size=8'])).toMatchObject({ out: { says: 'flags' }, cache: 'rejected' });
    expect(run(['--max-semi-space-size=8'])).toMatchObject({ out: { says: 'flags' }, cache: 'used' });
  });

  it('a cache that cannot be read as one is ignored', () => {
    writeFileSync(file, bundle('garbage'));
    writeFileSync(`${file}.cache`, 'not a cache');
    expect(run()).toMatchObject({ out: { says: 'garbage' }, cache: 'stale' });
  });
});
