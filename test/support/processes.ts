import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { budget } from './pace';

/** Repository root (bench/ sits directly under it). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:PORT` from the `listening on http://` line. */
  url: string;
  /** ms from spawn to the listening line. */
  startMs: number;
  /** What the child wrote to stdout so far (the last 20,000 characters). */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
  /** kill -9, as a crash would. */
  kill9(): Promise<void>;
}

const live = new Set<ChildProcess>();
let hooked = false;

/** Children die with us, whatever way we exit. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  });
}

function exited(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

/**
 * Spawns `node --import tsx <script> …args` from the repository root (no npx wrapper, so the
 * pid is the server's own) and waits for its `listening on http://` line.
 */
export async function spawnNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  opts: { timeoutMs?: number; nodeArgs?: string[]; /** false: plain node, for an already-built .mjs */ loader?: boolean } = {},
): Promise<Child> {
  hookExit();
  const started = performance.now();
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...(opts.loader === false ? [] : ['--import', 'tsx']), script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  // BENCH_SERVER_STDOUT=FILE: the child's whole stdout appended there too (V8's --trace-opt /
  // --trace-deopt print to stdout; otherwise it is read only for the listening line).
  const tee = process.env.BENCH_SERVER_STDOUT;
  if (tee) proc.stdout?.on('data', (d: Buffer | string) => appendFileSync(tee, d));
  let err = '';
  proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-20_000);
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not print its listening line within ${opts.timeoutMs ?? budget(30_000)} ms; stderr: ${err.slice(-2000)}`));
    }, opts.timeoutMs ?? budget(30_000));
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out = (out + d).slice(-20_000);
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before listening; stderr: ${err.slice(-2000)}`));
    });
  });
  const startMs = performance.now() - started;
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`${script}: no pid`);
  return {
    proc,
    pid,
    url,
    startMs,
    stdout: () => out,
    stderr: () => err,
    stop: async (graceMs = 10_000) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const code = await exited(proc);
      clearTimeout(timer);
      return code;
    },
    kill9: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited(proc);
    },
  };
}

/**
 * Builds the server bundle from the current sources (scripts/build-server.mjs), so a bench's
 * servers run what `npm run serve` runs: with a source newer than the bundle, scripts/serve.mjs
 * runs the TypeScript through tsx instead, and the figures are those of that.
 */
export function buildServerBundle(): void {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * Starts the server the way `npm run serve` does (scripts/serve.mjs with SERVER_NODE_FLAGS: the
 * prebuilt bundle from `npm run build`, or the source through tsx when the bundle is stale) on a
 * free loopback port. `nodeArgs` come after those flags, so they can override them.
 */
export function spawnServer(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Child> {
  return spawnNode('scripts/serve.mjs', ['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn', ...env }, { nodeArgs: [...SERVER_NODE_FLAGS, ...nodeArgs], loader: false });
}

/** Runs the operator CLI (`npm run admin -- …`) and returns its parsed `--json` output. */
export function runAdmin<T = Record<string, unknown>>(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args, '--json'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(proc);
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    proc.once('exit', (code) => {
      live.delete(proc);
      if (code !== 0) return reject(new Error(`admin ${args[0]} exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`admin ${args[0]} printed no JSON: ${out}`));
      }
    });
  });
}

/**
 * Memory fields of a process's /proc/PID/status in MB to 0.1 (VmRSS, RssAnon, RssFile, VmHWM, …),
 * each null where absent; null outright off Linux or once the process is gone.
 */
export function procStatusMb<K extends string>(pid: number, fields: readonly K[]): Record<K, number | null> | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const mb = (field: string): number | null => {
    const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 102.4) / 10;
  };
  return Object.fromEntries(fields.map((f) => [f, mb(f)])) as Record<K, number | null>;
}

/** Resident set size of a process in MB (Linux /proc), or null elsewhere. */
export const rssMb = (pid: number): number | null => procStatusMb(pid, ['VmRSS'])?.VmRSS ?? null;

/**
 * CPU time (user + system, ms) the process has used so far, from /proc/PID/stat; null off Linux.
 * Per request, it is a figure the other processes on a shared machine disturb far less than rps.
 */
export function cpuMs(pid: number): number | null {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * user + system ms from the text of a /proc stat file (a process's or a thread's); with
 * `withChildren`, plus what its exited children left it (cutime + cstime).
 */
export function statCpuMs(stat: string, withChildren = false): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime and cstime are fields 14 to 17 of stat(5); fields[0] here is field 3.
  const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** CPU ms per thread of a process, by thread name (Linux /proc/PID/task), or {} elsewhere. */
export function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const key = tid === String(pid) ? 'main' : `${name}:${tid}`;
        out[key] = (out[key] ?? 0) + statCpuMs(stat);
      } catch {
        // the thread ended
      }
    }
  } catch {
    // not Linux
  }
  return out;
}
