import type { Db } from '../../db/database';
import { changeStamp, selectCommitVersion } from '../../db/read-stamp';
import { precompiled } from '../../db/precompiled';
import { notFound } from '../../lib/errors';
import type { SessionWithOwner } from './payments.repository';
import { defaultFeeRule, type FeeRule } from '../../domain/fees';
import type { Rail } from '../../../shared/schemas/common';

/**
 * The fee rules the payer's quote reads, per integration, kept while the database's change stamp
 * (server/db/database.ts) is unchanged, as the API-key cache is (ApiKeyMemory,
 * server/modules/auth/merchant-auth.ts): a fee-rule, integration or merchant write in this process
 * drops them at once; so does, on SQLite, a commit by another connection (the CLI, a second
 * process: `PRAGMA data_version`). On PostgreSQL another instance's change is seen within
 * CREDENTIAL_CACHE_TTL_MS (2 s), the same bound as a key revocation. Only the quote reads it: an
 * attempt start or a cash slip reads the rule in its own transaction, so what is charged is never
 * stale. One per composed Deps (server/compose.ts), never module state.
 */
export interface QuoteInputMemory {
  /** Keyed by integration id and currency. */
  feeRules: Map<string, { stamp: string; rules: Partial<Record<Rail, FeeRule>> }>;
}

export const createQuoteInputMemory = (): QuoteInputMemory => ({ feeRules: new Map() });

const CACHE_MAX = 1000;

const feeRulesOfIntegration = precompiled((db, p: { integrationId: string; currency: string }) =>
  db
    .selectFrom('fee_rules')
    .select(['rail', 'percent_bps', 'fixed_minor', 'cap_minor', 'bearer'])
    .where('integration_id', '=', p.integrationId)
    .where('currency', '=', p.currency),
);

// findSession's query (payments.repository.ts), with the commit version in the same statement (where the engine has one).
const sessionForQuote = precompiled((db, p: { id: string }) => {
  const q = db
    .selectFrom('checkout_sessions as s')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .selectAll('s')
    .select(['m.name as merchant_name', 'i.allowed_rails', 'i.card_collection_mode', 'i.mode', 'i.momo_countries'])
    .where('s.id', '=', p.id);
  return selectCommitVersion(db, q);
});

/** The session with its owner's rails, as findSession, and the commit version read with it (where the engine has one). */
export async function findSessionForQuote(db: Db, id: string): Promise<{ session: SessionWithOwner; dataVersion: number | undefined }> {
  const [row] = await sessionForQuote(db, { id });
  if (!row) throw notFound(`session ${id}`);
  const { data_version: dataVersion, ...session } = row as SessionWithOwner & { data_version?: number };
  return { session, dataVersion };
}

/**
 * The integration's rule for each rail in the session's currency (its own, else that currency's
 * default; never a rule of another currency): one query per change of the stamp. `dataVersion`:
 * the commit version, when the caller has just read it (findSessionForQuote).
 */
export async function quoteFeeRules(
  deps: { db: Db; quoteInputs: QuoteInputMemory },
  integrationId: string,
  currency: string,
  dataVersion?: number,
): Promise<(rail: Rail) => FeeRule> {
  const stamp = changeStamp(deps.db, dataVersion);
  const cache = deps.quoteInputs.feeRules;
  const key = `${integrationId} ${currency}`;
  let hit = cache.get(key);
  if (!hit || hit.stamp !== stamp) {
    const rules: Partial<Record<Rail, FeeRule>> = {};
    for (const { rail, ...rule } of await feeRulesOfIntegration(deps.db, { integrationId, currency })) rules[rail] = rule;
    if (!cache.has(key) && cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    hit = { stamp, rules };
    cache.set(key, hit);
  }
  const { rules } = hit;
  return (rail) => rules[rail] ?? defaultFeeRule(currency, rail);
}
