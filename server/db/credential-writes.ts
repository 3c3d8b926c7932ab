/**
 * Which SQL statements may change what the per-process caches keyed by the change stamp hold
 * (server/db/database.ts changeStamp): the API-key cache (server/modules/auth/merchant-auth.ts)
 * and the quote's fee rules (server/modules/payments/quote-inputs.ts) are dropped when one runs
 * in this process.
 */

/**
 * Tables whose rows decide who a credential belongs to (merchants, integrations, api_keys), and
 * the fee rules the quote caches (fee_rules; integrations also hold its allowed rails).
 */
export const CREDENTIAL_TABLES = new Set(['merchants', 'integrations', 'api_keys', 'fee_rules']);
const WRITE_TARGET = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|replace\s+into)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
const TRANSACTION_CONTROL = /^\s*(?:begin|commit|end|rollback|savepoint|release)\b/i;
const touchesCredentials = new Map<string, boolean>();

/** True unless the statement provably writes only to a table outside CREDENTIAL_TABLES. */
export function mayTouchCredentials(sql: string): boolean {
  let known = touchesCredentials.get(sql);
  if (known === undefined) {
    const table = WRITE_TARGET.exec(sql)?.[1];
    // `begin immediate` counts as a write to SQLite; transaction control changes no rows.
    known = TRANSACTION_CONTROL.test(sql) ? false : table === undefined || CREDENTIAL_TABLES.has(table.toLowerCase());
    if (touchesCredentials.size < 2000) touchesCredentials.set(sql, known);
  }
  return known;
}

