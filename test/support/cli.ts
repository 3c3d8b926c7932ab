import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { databaseUrls } from './database';

const ROOT = resolve(__dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node --import tsx server/cli/admin.ts …` (what `npm run admin --` runs) with its own DATA_DIR; bounded in time. `input` is piped to stdin; `env` adds variables. */
export function runAdmin(dataDir: string, args: string[], input?: string, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, NODE_OPTIONS: '', ...(databaseUrls.has(dataDir) ? { DATABASE_URL: databaseUrls.get(dataDir) } : {}), ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    if (input !== undefined) child.stdin?.end(input);
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
