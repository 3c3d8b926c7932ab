import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/database';
import { columnList, precompiled, rowOf } from '../db/precompiled';
import { groupCommitted } from '../db/group-commit';
import type { Database, PaymentAttemptsTable } from '../db/schema';

/**
 * The payment attempt state machine. Every move is a conditional update
 * (`… WHERE status = 'pending'`) inside the caller's transaction and returns whether it won,
 * so two racing calls (a callback and a refresh, two authorizations) cannot both settle one
 * attempt; the caller moves the session (session-transitions.ts) in the same transaction.
 *
 *   (none)  → pending    a provider call begins (beginAttempt)
 *   pending → pending    a call claimed, released, or the provider's progress recorded (raw_status)
 *   pending → (none)     the provider refused before it acted: nothing was ever paid (discardAttempt)
 *   pending → succeeded  approveAttempt
 *   pending → declined   declineAttempt
 *   pending → expired    expireAttempt (prompt or transfer window ended, provider said so, session closed)
 */
type Trx = Transaction<Database>;
type Attempt = Pick<PaymentAttemptsTable, 'id' | 'raw_status'>;

const won = (r: { numUpdatedRows: bigint } | { numDeletedRows: bigint }): boolean =>
  Number('numUpdatedRows' in r ? r.numUpdatedRows : r.numDeletedRows) === 1;

/** (none) → pending: the attempt is recorded before its provider is asked. */
const ATTEMPT_COLUMNS = columnList<PaymentAttemptsTable>()([
  'id', 'session_id', 'rail', 'provider', 'provider_reference', 'status', 'raw_status', 'decline_reason', 'base_minor', 'fee_minor',
  'amount_charged_minor', 'currency', 'operator', 'phone', 'phone_last4', 'account_name', 'payment_reference', 'card_brand', 'card_last4',
  'scenario', 'resend_count', 'code_sent_at', 'prompt_expires_at', 'created_at', 'updated_at', 'finalized_at',
]);
// momo_attempt_create's insert, compiled once.
const insertAttempt = precompiled((db, p: PaymentAttemptsTable) => db.insertInto('payment_attempts').values(rowOf(p, ATTEMPT_COLUMNS)));

export async function beginAttempt(trx: Trx, row: PaymentAttemptsTable & { status: 'pending' }): Promise<void> {
  await insertAttempt(trx, row);
}

/** pending → (none): only while the refused call's claim (`raw_status`) is still the attempt's. */
export async function discardAttempt(trx: Trx, a: Attempt): Promise<boolean> {
  return won(await trx.deleteFrom('payment_attempts').where('id', '=', a.id).where('status', '=', 'pending').where('raw_status', '=', a.raw_status).executeTakeFirst());
}

/** pending → pending, marked as taken by one call (`set` carries its in-flight raw status): false when another call holds it. */
export async function claimAttempt(trx: Trx, a: Attempt, set: Partial<PaymentAttemptsTable>): Promise<boolean> {
  return won(await trx.updateTable('payment_attempts').set(set).where('id', '=', a.id).where('status', '=', 'pending').where('raw_status', '=', a.raw_status).executeTakeFirst());
}

/**
 * pending → pending, a claim given back after a definite provider error: the fields it took
 * are restored only while the claim made at `claimedAt` is still the latest change. One
 * statement, so it needs no transaction of its own.
 */
export async function releaseClaim(q: Db, a: PaymentAttemptsTable, claimedAt: string): Promise<boolean> {
  return won(
    await q
      .updateTable('payment_attempts')
      .set({ raw_status: a.raw_status, code_sent_at: a.code_sent_at, resend_count: a.resend_count, updated_at: a.updated_at })
      .where('id', '=', a.id)
      .where('status', '=', 'pending')
      .where('updated_at', '=', claimedAt)
      .executeTakeFirst(),
  );
}

/**
 * pending → pending, what the provider said recorded (raw status, references, card details).
 * With `whileRawStatus`, only while the attempt still shows that in-flight status.
 */
export async function recordProgress(trx: Trx, attemptId: string, set: Partial<PaymentAttemptsTable>, whileRawStatus?: string): Promise<boolean> {
  let q = trx.updateTable('payment_attempts').set(set).where('id', '=', attemptId).where('status', '=', 'pending');
  if (whileRawStatus !== undefined) q = q.where('raw_status', '=', whileRawStatus);
  return won(await q.executeTakeFirst());
}

/** What a provider's answer to `initiate` records on its attempt (recordInitiation). */
export type InitiationProgress = Pick<PaymentAttemptsTable, 'provider' | 'provider_reference' | 'scenario' | 'raw_status' | 'payment_reference' | 'prompt_expires_at' | 'updated_at'>;

type InitiationParams = InitiationProgress & { id: string; whileRawStatus: string };
const recordInitiationQuery = (db: Kysely<Database>, p: InitiationParams, withPaymentReference: boolean) =>
  db
    .updateTable('payment_attempts')
    .set({
      provider: p.provider,
      provider_reference: p.provider_reference,
      scenario: p.scenario,
      raw_status: p.raw_status,
      ...(withPaymentReference ? { payment_reference: p.payment_reference } : {}),
      prompt_expires_at: p.prompt_expires_at,
      updated_at: p.updated_at,
    })
    .where('id', '=', p.id)
    .where('status', '=', 'pending')
    .where('raw_status', '=', p.whileRawStatus)
    .returningAll();
const initiationRecorded = groupCommitted((db, p: InitiationParams) => recordInitiationQuery(db, p, true));
// A column in the SET list rewrites its index entries even when its value stays: an answer with no
// payment reference (Mobile Money) leaves the inserted NULL and its unique index alone.
const initiationRecordedNoReference = groupCommitted((db, p: InitiationParams) => recordInitiationQuery(db, p, false));

/**
 * pending → pending, the provider's answer to `initiate` recorded while the attempt still shows
 * the in-flight status `whileRawStatus`: the attempt as it is now, or undefined when another
 * call settled or claimed it meanwhile. One statement (compiled once: momo_attempt_create runs
 * it), so `q` may be the database itself when nothing else is written with it; there, on SQLite,
 * the answers recorded in one event-loop turn commit together (server/db/group-commit.ts).
 */
export async function recordInitiation(q: Db | Trx, attemptId: string, set: InitiationProgress, whileRawStatus: string): Promise<PaymentAttemptsTable | undefined> {
  // Every attempt is inserted with no payment reference (pendingRow): only one the answer brings is written.
  const statement = set.payment_reference === null ? initiationRecordedNoReference : initiationRecorded;
  return (await statement(q, { ...set, id: attemptId, whileRawStatus }))[0];
}

async function settle(trx: Trx, attemptId: string, status: 'succeeded' | 'declined' | 'expired', rawStatus: string, declineReason: string | null, now: string): Promise<boolean> {
  return won(
    await trx
      .updateTable('payment_attempts')
      .set({ status, raw_status: rawStatus, decline_reason: declineReason, updated_at: now, finalized_at: now })
      .where('id', '=', attemptId)
      .where('status', '=', 'pending')
      .executeTakeFirst(),
  );
}

/** pending → succeeded. */
export const approveAttempt = (trx: Trx, attemptId: string, rawStatus: string, now: string): Promise<boolean> => settle(trx, attemptId, 'succeeded', rawStatus, null, now);

/** pending → declined, with the provider's reason. */
export const declineAttempt = (trx: Trx, attemptId: string, rawStatus: string, reason: string | null, now: string): Promise<boolean> =>
  settle(trx, attemptId, 'declined', rawStatus, reason, now);

/** pending → expired (the prompt or transfer window ended, or the provider said so). */
export const expireAttempt = (trx: Trx, attemptId: string, rawStatus: string, reason: string | null, now: string): Promise<boolean> =>
  settle(trx, attemptId, 'expired', rawStatus, reason, now);

/** pending → expired for every attempt of a session that reached a final status: nothing else on it can be paid. */
export async function expireSessionAttempts(trx: Trx, sessionId: string, now: string): Promise<void> {
  await trx
    .updateTable('payment_attempts')
    .set({ status: 'expired', raw_status: 'SESSION_CLOSED', updated_at: now, finalized_at: now })
    .where('session_id', '=', sessionId)
    .where('status', '=', 'pending')
    .execute();
}
