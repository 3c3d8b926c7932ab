#!/usr/bin/env node
// `npm run audit`: `npm audit --omit=dev` (the packages that ship), failing on high or
// critical advisories. Where the registry cannot answer audits (a mirror or proxy without the
// advisory endpoint answers 405, or there is no network), it says so plainly and exits 0, so
// an offline build is not red for a check it could not run. docs/security.md § Dependencies.
import { spawnSync } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = spawnSync(npm, ['audit', '--omit=dev', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
let report;
try {
  report = JSON.parse(run.stdout || 'null');
} catch {
  report = null;
}

const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why =
    report?.statusCode !== undefined
      ? `the registry answered ${report.statusCode} to the audit request (${report.uri ?? 'advisories endpoint'})`
      : run.error
        ? `npm could not be run (${run.error.message})`
        : `npm audit gave no report (${(run.stderr || '').split('\n').find((l) => l.includes('error')) ?? `exit ${run.status}`})`;
  process.stdout.write(
    `npm run audit: NOT CHECKED: ${why}.\n` +
      'This registry offers no security advisories, so dependencies were not audited here. Run `npm run audit`\n' +
      'where registry.npmjs.org is reachable (CI, a developer machine) before a release.\n',
  );
  process.exit(0);
}

const serious = (counts.high ?? 0) + (counts.critical ?? 0);
const summary = ['critical', 'high', 'moderate', 'low', 'info'].map((k) => `${counts[k] ?? 0} ${k}`).join(', ');
if (serious > 0) {
  for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
    if (v.severity === 'high' || v.severity === 'critical') process.stdout.write(`  ${v.severity}: ${name} ${v.range ?? ''} (fix: ${v.fixAvailable ? 'available' : 'none yet'})\n`);
  }
  process.stdout.write(`npm run audit: FAILED: production dependencies have ${summary}.\n`);
  process.exit(1);
}
process.stdout.write(`npm run audit: ok: production dependencies have ${summary}.\n`);
