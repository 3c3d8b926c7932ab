// Runs a CommonJS server bundle (out/server/main.cjs, admin.cjs; scripts/build-server.mjs) with a
// V8 code cache beside it (`<bundle>.cache`), so a start deserialises the compiled code instead of
// parsing and compiling 4 MB of JavaScript again: a cold start of `npm run serve` went from 789 to
// 557 ms (medians of ten interleaved starts; docs/performance.md).
// Node 22 has module.enableCompileCache() for this; Node 20 has only vm.Script's cachedData.
//
// - The cache starts with the SHA-1 of the bundle it was made from (V8's own check compares only
//   the source's length): a cache of another build is never used.
// - V8 rejects a cache made under other V8 flags or another Node: the server then compiles as
//   before, and writes a fresh cache when it exits. `npm run build` makes both caches, with the
//   flags each entry runs with (SERVER_NODE_FLAGS for the server, none for the CLI).
// - Writing is best effort (a read-only install just starts without it): a temporary file, then
//   a rename, so a reader never sees half a cache.
// - PAYDESK_CODE_CACHE=report prints what became of the cache on stderr (`used`, `none`: there was
//   none, `stale`: made from another build, `rejected`: by V8), to find out why a start is slow.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

const HASH_HEX = 40;

/**
 * PAYDESK_CODE_CACHE=write (the build's training run): write the cache at exit even when the one
 * read was good; `report`: say on stderr what became of it.
 */
const mode = process.env.PAYDESK_CODE_CACHE;

function writeCache(file, hash, script) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${hash}\n`, 'latin1'), script.createCachedData()]));
    renameSync(tmp, file);
  } catch {
    // A read-only install, a full disk: the next start compiles, as without a cache.
  }
}

/** Runs `file` as a CommonJS module of this process (its own require, module, __filename and __dirname). */
export function runBundle(file) {
  const source = readFileSync(file);
  const hash = createHash('sha1').update(source).digest('hex');
  const cacheFile = `${file}.cache`;
  let cachedData;
  let status = 'none';
  try {
    const cache = readFileSync(cacheFile);
    if (cache.toString('latin1', 0, HASH_HEX) === hash) cachedData = cache.subarray(HASH_HEX + 1);
    else status = 'stale';
  } catch {
    // No cache yet: this run writes one.
  }
  // The module wrapper on the source's first line, so line numbers in stack traces are the bundle's own.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  if (cachedData !== undefined) status = script.cachedDataRejected ? 'rejected' : 'used';
  if (mode === 'report') process.stderr.write(`paydesk: code cache ${status} (${cacheFile})\n`);
  if (mode === 'write' || status !== 'used') {
    // At exit the cache holds every function compiled so far, not only the top level.
    process.once('exit', () => writeCache(cacheFile, hash, script));
  }
  const mod = new Module(file);
  mod.filename = file;
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  return mod.exports;
}
