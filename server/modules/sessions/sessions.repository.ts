import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { precompiled } from '../../db/precompiled';
import { selectRowVersion } from '../../db/row-versions';
import type { CheckoutSessionsTable } from '../../db/schema';
import { gatedOpenInserts } from '../../domain/session-transitions';
import { keyUpsert, type KeyReservation } from '../idempotency';

const byIdAndMerchant = precompiled((db, p: { id: string; merchantId: string }) =>
  selectRowVersion(db, db.selectFrom('checkout_sessions').selectAll().where('id', '=', p.id).where('merchant_id', '=', p.merchantId)),
);

/**
 * One session by id, only when it belongs to this merchant (`q` may be a transaction), with the
 * row's version where answers are kept by it (server/db/row-versions.ts). Compiled once: session_get's query.
 */
export async function findMerchantSession(q: Db, merchantId: string, id: string): Promise<(CheckoutSessionsTable & { row_version?: string }) | undefined> {
  return (await byIdAndMerchant(q, { id, merchantId }))[0];
}

type OpenRow = CheckoutSessionsTable & { historyId: string; mode: 'test' | 'live' };
type KeyParams = { [F in keyof KeyReservation as `k_${F}`]: KeyReservation[F] };
const KEY_FIELDS = ['integration_id', 'key', 'method', 'path', 'fingerprint', 'state', 'response_status', 'response_body', 'created_at', 'expires_at', 'now', 'staleBefore'] as const;

/**
 * PostgreSQL's session create as one autocommit statement (data-modifying CTEs), where each
 * statement is a round trip: the read of the invoice lines' currency (`m`), the Idempotency-Key's
 * reservation (`k`, written only when no line is billed in another currency), then the session,
 * its history row and its summary delta, written only when the reservation was (`gatedOpenInserts`).
 * One round trip instead of four (BEGIN, the reservation, the session, COMMIT); it reads and
 * writes what the READ COMMITTED transaction did, and a refusal or a live key writes nothing.
 * Answers `written` and the lines' currency.
 */
const openKeyed = precompiled((db, p: OpenRow & KeyParams) => {
  const key = Object.fromEntries(KEY_FIELDS.map((f) => [f, p[`k_${f}`]])) as unknown as KeyReservation;
  const inserts = gatedOpenInserts(p, sql<boolean>`exists (select 1 from k)`);
  return db
    .with('m', (qc) => inserts.lines(qc))
    .with('k', (qc) =>
      keyUpsert(qc, key, (w) =>
        w
          .selectNoFrom((eb) => [
            eb.val(key.integration_id).as('integration_id'),
            eb.val(key.key).as('key'),
            eb.val(key.method).as('method'),
            eb.val(key.path).as('path'),
            eb.val(key.fingerprint).as('fingerprint'),
            eb.val(key.state).as('state'),
            eb.cast<number | null>(eb.val(key.response_status), 'bigint').as('response_status'),
            eb.val(key.response_body).as('response_body'),
            eb.val(key.created_at).as('created_at'),
            eb.val(key.expires_at).as('expires_at'),
          ])
          .where(sql<boolean>`not exists (select 1 from m where currency <> ${p.currency})`),
      ),
    )
    .with('s', (qc) => inserts.session(qc))
    .with('h', (qc) => inserts.history(qc))
    .with('d', (qc) => inserts.delta(qc))
    .selectNoFrom(() => [sql<string | null>`(select currency from m)`.as('currency'), sql<boolean>`exists (select 1 from k)`.as('written')]);
  // Sent again on a connection found dead: if the first had committed, the key is live and this
  // writes nothing, so the caller answers the key's replay.
}, { safeToRepeat: true });

/** The same without an Idempotency-Key: written unless a line is billed in another currency. */
const openUnkeyed = precompiled((db, p: OpenRow) => {
  const fits = sql<boolean>`not exists (select 1 from m where currency <> ${p.currency})`;
  const inserts = gatedOpenInserts(p, fits);
  return db
    .with('m', (qc) => inserts.lines(qc))
    .with('s', (qc) => inserts.session(qc))
    .with('h', (qc) => inserts.history(qc))
    .with('d', (qc) => inserts.delta(qc))
    .selectNoFrom(() => [sql<string | null>`(select currency from m)`.as('currency'), fits.as('written')]);
});

/**
 * Writes an open session (and, when given, its key's reservation) in one statement; `written`
 * false means nothing was written: a line of the invoice is billed in `currency` (another
 * currency refuses the session), or the key is live.
 */
export async function openSessionAlone(db: Db, row: OpenRow, reservation: KeyReservation | undefined): Promise<{ written: boolean; currency: string | null }> {
  if (!reservation) return (await openUnkeyed(db, row))[0]!;
  const keyed = Object.fromEntries(KEY_FIELDS.map((f) => [`k_${f}`, reservation[f]])) as KeyParams;
  return (await openKeyed(db, { ...row, ...keyed }))[0]!;
}
