import { expireIfDue, isDue, openInvoiceSession } from '../../domain/session-transitions';
import type { CheckoutSessionsTable } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { AppError, notFound } from '../../lib/errors';
import { sessionMode } from '../../lib/ids';
import { findMerchantSession, openSessionAlone } from './sessions.repository';
import { dialectOf } from '../../db/dialect';
import { rowVersionOf, sessionRowVersion } from '../../db/row-versions';
import { idempotency, type IdempotencyKey, type KeyedAnswer } from '../idempotency';
import {
  DEFAULT_SESSION_LIFETIME_SECONDS,
  type CheckoutSessionCreate,
  type CheckoutSessionResponse,
} from '../../../shared/schemas/merchant';

export interface SessionOwner {
  merchantId: string;
  integrationId: string;
  mode: 'test' | 'live';
}

const checkoutUrl = (baseUrl: string, id: string): string => `${baseUrl}/checkout/${encodeURIComponent(id)}`;

function toMerchantSession(row: CheckoutSessionsTable, baseUrl: string): CheckoutSessionResponse {
  const out: CheckoutSessionResponse = {
    id: row.id,
    object: 'checkout.session',
    status: row.status,
    amount_minor: row.amount_minor,
    currency: row.currency,
    invoice_ref: row.invoice_ref,
    checkout_url: checkoutUrl(baseUrl, row.id),
    expires_at: row.expires_at,
    created_at: row.created_at,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
  if (row.description !== null) out.description = row.description;
  if (row.callback_url !== null) out.callback_url = row.callback_url;
  if (row.customer_name !== null || row.customer_email !== null) {
    out.customer = {};
    if (row.customer_name !== null) out.customer.name = row.customer_name;
    if (row.customer_email !== null) out.customer.email = row.customer_email;
  }
  return out;
}

/**
 * Creates an `open` session (with its first history row, see openInvoiceSession). Its currency must match the invoice lines recorded for the same
 * reference (409 INVOICE_CURRENCY_MISMATCH). An invoice that a session already paid is not
 * refused a new session: the API does not make payment policy for the merchant (a staging
 * instance reuses invoice references freely), and fulfilment is guarded by the receiver rules
 * (event id, amount, currency, invoice_ref); its remitted lines stay frozen.
 *
 * The row and the response are drawn first; the transaction reserves the Idempotency-Key (when
 * given) stored completed with that response (one statement fewer), then writes the session.
 *
 * READ COMMITTED (docs/architecture.md, "Rules of correctness"): the key is reserved by a conditional
 * upsert, the session is a fresh row, and the invoice-currency read races only invoice uploads,
 * which never read sessions, so every interleaving equals "this session first".
 */
export async function createSession(
  deps: Pick<AppDeps, 'db' | 'clock' | 'ids' | 'baseUrl' | 'config'>,
  owner: SessionOwner,
  input: CheckoutSessionCreate,
  key: IdempotencyKey | undefined,
): Promise<KeyedAnswer<CheckoutSessionResponse>> {
  const { clock, ids, baseUrl } = deps;
  const now = clock.now();
  const lifetime = input.expires_in_seconds ?? DEFAULT_SESSION_LIFETIME_SECONDS;
  const row: CheckoutSessionsTable & { status: 'open' } = {
    // Time-ordered (ids.ts timeOrderedSecretBase62): 17 random characters, and new sessions' index entries at the end.
    id: ids.timeToken(owner.mode === 'live' ? 'cs_live' : 'cs_test', 24, now.getTime()),
    merchant_id: owner.merchantId,
    integration_id: owner.integrationId,
    status: 'open',
    amount_minor: input.amount_minor,
    currency: input.currency,
    invoice_ref: input.invoice_ref,
    description: input.description ?? null,
    customer_name: input.customer?.name ?? null,
    customer_email: input.customer?.email ?? null,
    callback_url: input.callback_url ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    paid_rail: null,
    expires_at: new Date(now.getTime() + lifetime * 1000).toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    finalized_at: null,
  };
  const answer = { status: 201, body: toMerchantSession(row, baseUrl()), replayed: false };
  const mismatch = (lineCurrency: string) =>
    new AppError('INVOICE_CURRENCY_MISMATCH', `currency: invoice ${input.invoice_ref} is billed in ${lineCurrency}, not ${input.currency}`);
  if (dialectOf(deps.db).oneStatementWrites) {
    // One autocommit statement (a READ COMMITTED transaction of its own) instead of BEGIN, the
    // reservation, the write and COMMIT: openSessionAlone writes all of it or nothing.
    const reservation = key ? idempotency.reservation(deps, key, answer) : undefined;
    const done = await openSessionAlone(deps.db, { ...row, historyId: ids.timeUuid(now.getTime()), mode: owner.mode }, reservation);
    if (done.written) return answer;
    const replay = key && reservation ? await idempotency.afterRefused<CheckoutSessionResponse>(deps.db, key, reservation) : undefined;
    if (replay) return replay;
    // A line in another currency refused it before the key was reserved; else the key's row vanished between the two statements.
    throw done.currency !== null && done.currency !== input.currency ? mismatch(done.currency) : idempotency.inFlight();
  }
  return deps.db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      if (key) {
        const reserved = await idempotency.reserve(trx, deps, key, answer);
        if (reserved.kind === 'replay') return idempotency.replayed<CheckoutSessionResponse>(reserved);
      }
      // Written unless the invoice's lines are in another currency (on PostgreSQL written and then rolled back by this throw).
      const lineCurrency = await openInvoiceSession(trx, { ids }, row);
      if (lineCurrency !== undefined && lineCurrency !== input.currency) throw mismatch(lineCurrency);
      return answer;
    });
}

/** The version of the merchant's session row an answer can be kept by (server/db/row-versions.ts), where the engine has one. */
export const merchantSessionVersion = (deps: Pick<AppDeps, 'db'>, owner: { merchantId: string }, id: string): Promise<string | undefined> =>
  sessionRowVersion(deps.db, owner.merchantId, id);

/** A session of this merchant and this key's mode: a test key never sees a live session (404, as for another merchant's). */
async function getMerchantSession(
  deps: Pick<AppDeps, 'db' | 'clock' | 'ids' | 'outbox'>,
  owner: { merchantId: string; mode: 'test' | 'live' },
  id: string,
): Promise<CheckoutSessionsTable & { row_version?: string }> {
  const { db } = deps;
  const find = () => findMerchantSession(db, owner.merchantId, id);
  const row = sessionMode(id) === owner.mode ? await find() : undefined;
  if (!row) throw notFound(`session ${id}`);
  // Between two sweeps a session can be past expires_at: the lookup never reports it as open.
  if (isDue(row, deps.clock.now())) {
    await db.transaction().execute((trx) => expireIfDue(trx, deps, id));
    return (await find()) ?? row;
  }
  return row;
}

/** The merchant's view of its session, with the version of the row it was built from (where answers are kept by one). */
export async function merchantSessionAnswer(
  deps: Pick<AppDeps, 'db' | 'clock' | 'ids' | 'outbox'>,
  owner: { merchantId: string; mode: 'test' | 'live' },
  id: string,
  baseUrl: string,
): Promise<{ answer: CheckoutSessionResponse; version: string | undefined }> {
  const row = await getMerchantSession(deps, owner, id);
  return { answer: toMerchantSession(row, baseUrl), version: rowVersionOf(deps.db, row) };
}
