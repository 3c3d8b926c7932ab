import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { MERCHANT_NAME, STAFF_PASSWORD, SUPERVISOR, TELLER, statePath } from './support';

/**
 * Creates the merchant and its test integration through the operator CLI, against the same
 * DATA_DIR the server under test uses (the running server sees it without a restart),
 * and leaves the API key where the tests read it.
 */
export default function globalSetup(): void {
  const dataDir = process.env.PAYDESK_E2E_DATA_DIR;
  if (!dataDir) throw new Error('PAYDESK_E2E_DATA_DIR is not set (playwright.config.ts sets it)');
  // `npm run admin`'s entry (scripts/serve.mjs: the bundle the web server's build made, else tsx).
  const out = execFileSync(process.execPath, ['scripts/serve.mjs', 'admin', 'integration:create', '--merchant', MERCHANT_NAME, '--json'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  if (!line) throw new Error(`integration:create printed no JSON: ${out}`);
  const created = JSON.parse(line) as { api_key: string; merchant_id: string };
  if (!created.api_key?.startsWith('ak_test_')) throw new Error('integration:create returned no test key');
  // Cash desk staff for the cash-slip test: a teller records the deposit, a supervisor approves it.
  for (const [username, role] of [
    [TELLER.username, 'teller'],
    [SUPERVISOR.username, 'supervisor'],
  ] as const) {
    execFileSync(
      process.execPath,
      ['scripts/serve.mjs', 'admin', 'staff:create', '--username', username, '--password', STAFF_PASSWORD, '--role', role, ...(role === 'teller' ? ['--branch', TELLER.branchCode] : []), '--json'],
      { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  }
  writeFileSync(statePath(dataDir), JSON.stringify({ apiKey: created.api_key, merchantId: created.merchant_id }), { mode: 0o600 });
}
