import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder of modules: each key a path under it (`auth/index.ts`), each value the file's text. */
function modules(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-modules-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'modules', path)), { recursive: true });
    writeFileSync(join(dir, 'modules', path), text);
  }
  return join(dir, 'modules');
}

const check = (dir?: string) => spawnSync(process.execPath, [join(root, 'scripts', 'module-cycles.mjs'), ...(dir ? [dir] : [])], { encoding: 'utf8' });

describe('module cycles (scripts/module-cycles.mjs, npm run lint)', () => {
  it("passes on the server's modules: every dependency between them runs one way", () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^module-cycles: \d+ modules, \d+ dependencies between them, all one way\n$/);
  });

  it('fails on two modules importing each other, a type-only import too, naming both imports', () => {
    const dir = modules({
      'audit/index.ts': "export { recordAudit } from './audit.service';\n",
      'audit/audit.service.ts': "import type { StaffContext } from '../auth';\n\nexport const recordAudit = (s: StaffContext) => s;\n",
      'auth/index.ts': "export type { StaffContext } from './staff';\n",
      'auth/staff.ts': "import { recordAudit } from '../audit';\n\nexport interface StaffContext { id: string }\nexport const login = () => recordAudit({ id: 'x' });\n",
    });
    const r = check(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('audit → auth → audit');
    expect(r.stderr).toContain(`audit → auth: ${join(dir, 'audit', 'audit.service.ts')}:1 imports '../auth'`);
    expect(r.stderr).toContain(`auth → audit: ${join(dir, 'auth', 'staff.ts')}:1 imports '../audit'`);
  });

  it('fails on a longer loop, and on a re-export or a reach into another module’s file', () => {
    const dir = modules({
      'finance/index.ts': "export * from '../reports/jobs';\n",
      'reports/jobs.ts': "import { auditCsv } from '../audit';\n\nexport const jobs = [auditCsv];\n",
      'audit/index.ts': "\n\nexport { paymentsCsv as auditCsv } from '../finance';\n",
    });
    const r = check(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('audit → finance → reports → audit');
    expect(r.stderr).toContain(`audit → finance: ${join(dir, 'audit', 'index.ts')}:3 imports '../finance'`);
    expect(r.stderr).toContain(`finance → reports: ${join(dir, 'finance', 'index.ts')}:1 imports '../reports/jobs'`);
  });

  it('passes dependencies that run one way, a module’s own files and the layers outside the modules', () => {
    const dir = modules({
      'payments/index.ts': "export { slipBody } from './slip-body';\n",
      'payments/slip-body.ts': "import { recordAudit } from '../audit';\nimport { AppError } from '../../lib/errors';\n\nexport const slipBody = () => [recordAudit, AppError];\n",
      'cash/cash.service.ts': "import { slipBody } from '../payments';\nimport { recordAudit } from '../audit';\n\nexport const slip = () => [slipBody, recordAudit];\n",
      'audit/index.ts': "import { Readable } from 'node:stream';\n\nexport const recordAudit = () => Readable;\n",
    });
    const r = check(dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('module-cycles: 3 modules, 3 dependencies between them, all one way\n');
  });
});
