import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run audit` (scripts/audit.mjs) against a stand-in `npm` on PATH that prints a canned
// `npm audit --json` answer: the three outcomes the script must tell apart.
const script = resolve(__dirname, '../../scripts/audit.mjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function runWith(answer: unknown, exitCode: number) {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-audit-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'answer.json'), JSON.stringify(answer));
  writeFileSync(join(dir, 'npm'), `#!/bin/sh\ncat "${join(dir, 'answer.json')}"\nexit ${exitCode}\n`);
  chmodSync(join(dir, 'npm'), 0o755);
  return spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH}` } });
}

const metadata = (high: number, critical: number) => ({ metadata: { vulnerabilities: { info: 0, low: 2, moderate: 1, high, critical } } });

describe.skipIf(process.platform === 'win32')('npm run audit', () => {
  it('says plainly when the registry cannot audit (405) and exits 0', () => {
    const r = runWith({ statusCode: 405, uri: 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk' }, 1);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/NOT CHECKED: the registry answered 405/);
  });
  it('fails on high or critical advisories in what the server runs', () => {
    const r = runWith({ ...metadata(1, 0), vulnerabilities: { fastify: { severity: 'high', range: '<1.2.3', fixAvailable: true } } }, 1);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/high: fastify <1\.2\.3 \[server\]/);
    expect(r.stdout).toMatch(/FAILED/);
  });
  it('fails on high or critical advisories in what the browser pages bundle', () => {
    const r = runWith({ ...metadata(0, 1), vulnerabilities: { 'react-dom': { severity: 'critical', range: '<99', fixAvailable: false } } }, 1);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/critical: react-dom <99 \[browser\]/);
    expect(r.stdout).toMatch(/FAILED/);
  });
  it('lists high advisories of build and test tools without failing', () => {
    const r = runWith({ ...metadata(1, 0), vulnerabilities: { 'some-build-tool': { severity: 'high', range: '<1', fixAvailable: true } } }, 1);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/build and test tools only[\s\S]*high: some-build-tool/);
  });
  it('passes with only low and moderate findings, and prints the counts', () => {
    const r = runWith(metadata(0, 0), 1);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ok: nothing high or critical in what ships \(\d+ server and \d+ browser packages\); all packages: 0 critical, 0 high, 1 moderate, 2 low/);
  });
});
