#!/usr/bin/env node
// `npm run check:electron`: @doyensec/electronegativity over the desktop app (electron/ and the
// renderer it loads), failing on any finding of medium severity or worse that docs/desktop.md
// does not justify. Each justification below names the check, the file and why it is safe;
// a justified finding that stops appearing is reported too, so the list cannot go stale.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/** Findings reviewed and accepted; the reasons are written out in docs/desktop.md § Security review. */
const JUSTIFIED = [
  {
    id: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'electron/main/external-url.ts',
    why: 'the one shell.openExternal call, reached only after isSafeExternalUrl (http/https, host, no credentials, no control characters)',
  },
  {
    id: 'PRELOAD_JS_CHECK',
    file: 'electron/main/back-office-window.ts',
    why: 'the preload exposes three fixed functions (no ipcRenderer, no generic channel); the main process checks the sender and zod-parses every argument',
  },
];

// AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK downloads Electron's release list: offline it hangs on
// the network, online its answer changes from one day to the next. Keeping Electron current is
// the dependency update routine's job (docs/desktop.md), not a reason for a build to flip.
const EXCLUDED_CHECKS = ['AvailableSecurityFixesGlobalCheck'];

const SEVERITY_FLOOR = 'MEDIUM';

// The scanned tree: what ships in the app's asar (main, preload, renderer source) plus
// package.json, from which electronegativity reads the Electron version.
const scanDir = mkdtempSync(join(tmpdir(), 'paydesk-electronegativity-'));
try {
  for (const part of ['package.json', 'electron', 'renderer']) cpSync(join(root, part), join(scanDir, part), { recursive: true });

  const run = require('@doyensec/electronegativity/dist/runner.js');
  const { version: electronVersion } = require('electron/package.json');
  const quiet = console.log;
  console.log = () => {}; // the runner's progress chatter
  let result;
  try {
    result = await run({
      input: scanDir,
      isRelative: true,
      electronVersionOverride: electronVersion,
      excludeFromScan: EXCLUDED_CHECKS,
      customScan: [],
      severitySet: undefined,
      confidenceSet: undefined,
    });
  } finally {
    console.log = quiet;
  }

  const { severity } = require('@doyensec/electronegativity/dist/finder/attributes.js');
  const floor = severity[SEVERITY_FLOOR].value;
  const serious = result.issues.filter((i) => i.severity.value >= floor);
  const isJustified = (i) => JUSTIFIED.some((j) => j.id === i.id && i.file === j.file);
  const unjustified = serious.filter((i) => !isJustified(i));
  const stale = JUSTIFIED.filter((j) => !serious.some((i) => i.id === j.id && i.file === j.file));
  const hardErrors = result.errors.filter((e) => !e.tolerable);

  const where = (i) => `${i.file}:${i.location.line}:${i.location.column}`;
  console.log(`electronegativity (Electron ${electronVersion}): ${result.issues.length} finding(s), ${serious.length} at ${SEVERITY_FLOOR} or above`);
  if (process.env.CHECK_ELECTRON_VERBOSE) for (const i of result.issues.filter((x) => x.severity.value < floor)) console.log(`  below      ${i.id} [${i.severity.name}] ${where(i)}`);
  for (const i of serious.filter(isJustified)) console.log(`  justified  ${i.id} ${where(i)}`);
  for (const i of unjustified) console.log(`  FINDING    ${i.id} [${i.severity.name}/${i.confidence.name}] ${where(i)}: ${i.description} ${i.shortenedURL ?? ''}`);
  for (const j of stale) console.log(`  STALE      ${j.id} ${j.file}: justified in scripts/check-electron.mjs but no longer reported; remove it (and from docs/desktop.md)`);
  for (const e of hardErrors) console.log(`  ERROR      ${e.file}: ${e.message}`);

  if (unjustified.length || stale.length || hardErrors.length) {
    console.log('check:electron failed');
    process.exitCode = 1;
  } else {
    console.log('check:electron passed: no unjustified findings of medium severity or worse');
  }
} finally {
  rmSync(scanDir, { recursive: true, force: true });
}
