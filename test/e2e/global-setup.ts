import { writeFileSync } from 'node:fs';
import { MERCHANT_NAME, SUPERVISOR, TELLER, adminCli, createDeskStaff, statePath } from './support';

/**
 * Creates the merchant and its test integration through the operator CLI, against the same
 * DATA_DIR the server under test uses (the running server sees it without a restart),
 * and leaves the API key where the tests read it.
 */
export default function globalSetup(): void {
  const dataDir = process.env.PAYDESK_E2E_DATA_DIR;
  if (!dataDir) throw new Error('PAYDESK_E2E_DATA_DIR is not set (playwright.config.ts sets it)');
  const created = adminCli(['integration:create', '--merchant', MERCHANT_NAME]);
  if (!created.api_key?.startsWith('ak_test_')) throw new Error(`integration:create returned no test key: ${JSON.stringify(created)}`);
  // Cash desk staff for the cash-slip test: a teller records the deposit, a supervisor approves it.
  createDeskStaff({ teller: TELLER.username, supervisor: SUPERVISOR.username });
  writeFileSync(statePath(dataDir), JSON.stringify({ apiKey: created.api_key, merchantId: created.merchant_id }), { mode: 0o600 });
}
