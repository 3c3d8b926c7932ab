import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

const root = join(__dirname, '..', '..');

describe('node flags of the headless server (scripts/server-node-flags.mjs)', () => {
  it('npm run serve passes every one of them to node before scripts/serve.mjs', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const serve = pkg.scripts.serve!;
    // `exec`: the shell npm runs the script in becomes node, so SIGTERM reaches the server (test/tooling/serve-signals.test.ts).
    const [exec, node, ...rest] = serve.split(/\s+/);
    expect(exec).toBe('exec');
    expect(node).toBe('node');
    const flags = rest.slice(0, rest.indexOf('scripts/serve.mjs'));
    expect(flags).toEqual([...SERVER_NODE_FLAGS]);
  });

  it('the Containerfile and the systemd unit start node with the same flags', () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(join(root, 'Containerfile'), 'utf8'))?.[1];
    const [node, ...args] = JSON.parse(entrypoint ?? '[]') as string[];
    expect(node).toBe('node');
    expect(args.slice(0, args.indexOf('scripts/serve.mjs'))).toEqual([...SERVER_NODE_FLAGS]);
    const execStart = /^ExecStart=(.*)$/m.exec(readFileSync(join(root, 'deploy/systemd/paydesk.service'), 'utf8'))?.[1] ?? '';
    const [bin, ...unitArgs] = execStart.split(/\s+/);
    expect(bin).toBe('/usr/bin/node');
    expect(unitArgs.slice(0, unitArgs.findIndex((a) => a.endsWith('scripts/serve.mjs')))).toEqual([...SERVER_NODE_FLAGS]);
  });

  it('this node accepts them, and they cap the young generation at 2 x 8 MB under allocation', () => {
    const script = `
      const v8 = require('node:v8');
      let keep = [], x = [];
      for (let i = 0; i < 2e6; i++) { x.push({ i, s: 'x' + i }); if (x.length > 20000) { keep.push(x.slice(0, 50)); x = []; } }
      const ns = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stdout.write(String(ns.space_size));`;
    const capped = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', script], { encoding: 'utf8' });
    expect(capped.status, capped.stderr).toBe(0);
    expect(Number(capped.stdout)).toBeLessThanOrEqual(16 * 1024 * 1024);
    const uncapped = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(Number(uncapped.stdout)).toBeGreaterThan(16 * 1024 * 1024);
  });
});
