import type { Expression, QueryCreator, SqlBool, Transaction } from 'kysely';
import type { Db } from '../db/database';
import { dialectOf } from '../db/dialect';
import { columnList, precompiled, rowOf } from '../db/precompiled';
import type { CheckoutSessionsTable, Database, EventsTable } from '../db/schema';
import type { Clock } from '../lib/clock';
import { AppError, missingCase } from '../lib/errors';
import { base62Millis, sessionMode, type IdGenerator } from '../lib/ids';
import type { Rail, SessionStatus } from '../../shared/schemas/common';
import { MAX_DECLINED_ATTEMPTS } from '../../shared/schemas/checkout';
import { reallocateInvoice } from './invoice-allocation';
import { expireSessionAttempts } from './attempt-transitions';
import { voidSessionSlips } from './slip-transitions';
import { deltaInsert, gatedDeltaInsert, sessionDelta, summaryOnLinesChanged, summaryOnSessionCreated, summaryOnSessionMoved } from './invoice-summary';

/**
 * The session state machine (docs/lifecycle.md prints it with every cause). Every move is a conditional update
 * (`… WHERE status IN (allowed from-states)`) inside the caller's transaction, so two racing
 * requests cannot both win; a terminal move also writes its event (the webhook outbox) and
 * a history row in that same transaction.
 *
 *   open    → pending   payment confirmation under way (Mobile Money prompt, bank-transfer window, card charge, teller deposit review)
 *   pending → open      that attempt declined / expired / refused, the transfer window ended, or the deposit rejected
 *   pending → success   Mobile Money or card approved, bank transfer confirmed, deposit approved
 *   open    → expired   expires_at passed while open (sweeper, or the first read after it)
 *   open    → failed    the declined-attempt cap reached, or no payment can complete any more
 *   pending → failed    same, when the last decline arrives while pending
 */
export type Transition =
  | { kind: 'begin_confirmation'; cause: string }
  | { kind: 'confirmation_abandoned'; cause: string }
  | { kind: 'payment_confirmed'; rail: Rail; cause: string }
  | { kind: 'expired'; cause: string }
  | { kind: 'failed'; cause: string };

export { MAX_DECLINED_ATTEMPTS };

type Trx = Transaction<Database>;
type EventType = EventsTable['type'];

function plan(t: Transition): { from: SessionStatus[]; to: SessionStatus; event?: EventType } {
  switch (t.kind) {
    case 'begin_confirmation':
      return { from: ['open'], to: 'pending' };
    case 'confirmation_abandoned':
      return { from: ['pending'], to: 'open' };
    case 'payment_confirmed':
      return { from: ['open', 'pending'], to: 'success', event: 'checkout.session.completed' };
    case 'expired':
      return { from: ['open'], to: 'expired', event: 'checkout.session.expired' };
    case 'failed':
      return { from: ['open', 'pending'], to: 'failed', event: 'checkout.session.failed' };
    default:
      return missingCase(t);
  }
}

export interface TransitionDeps {
  clock: Clock;
  ids: IdGenerator;
  /** Where a terminal move's event goes, in the same transaction (the webhook outbox of the composed Deps). */
  outbox: EventSink;
}

/** The `from_status` of a session's first history row: before it was created it had no status (docs/lifecycle.md, row 1). */
export const NO_STATUS = 'none';

/**
 * (none) → open: inserts a new session and its first history row (cause "created") in the
 * caller's transaction, so every status a session ever had has its row. No event: creation is
 * not announced to webhooks.
 */
/** Every column of a session as the app knows it (PostgreSQL's lower-cased search columns, migration 0033, are not among them). */
export const SESSION_COLUMNS = columnList<CheckoutSessionsTable>()([
  'id', 'merchant_id', 'integration_id', 'status', 'amount_minor', 'currency', 'invoice_ref', 'description', 'customer_name',
  'customer_email', 'callback_url', 'metadata', 'paid_rail', 'expires_at', 'created_at', 'updated_at', 'finalized_at',
]);

/**
 * The read of the currency an invoice's recorded lines are billed in (no row when it has none yet):
 * the select of PostgreSQL's one-statement session create, and SQLite's read of the other currency
 * after a refused one (openInvoiceSession).
 */
const lineCurrencyQuery = (db: QueryCreator<Database>, p: { merchantId: string; mode: 'test' | 'live'; invoiceRef: string }) =>
  db.selectFrom('invoice_lines').select('currency').where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).where('invoice_ref', '=', p.invoiceRef).limit(1);

// session_create's inserts: the session's and the first history row's builders (PostgreSQL's one statement), the history insert compiled once.
const sessionInsert = (db: QueryCreator<Database>, p: CheckoutSessionsTable) => db.insertInto('checkout_sessions').values(rowOf(p, SESSION_COLUMNS));
const createdHistoryInsert = (db: QueryCreator<Database>, p: { id: string; sessionId: string; at: string }) =>
  db.insertInto('session_history').values({ id: p.id, session_id: p.sessionId, from_status: NO_STATUS, to_status: 'open', cause: 'created', at: p.at });
const insertCreatedHistory = precompiled(createdHistoryInsert);

/**
 * PostgreSQL's one-statement session create with a gate (modules/sessions/sessions.repository.ts
 * folds the Idempotency-Key's reservation in): the session, its first history row and its
 * invoice-summary delta, each an INSERT … SELECT that writes only when `gate` holds. Integer
 * columns are cast: a parameter in a SELECT list is text to PostgreSQL.
 */
export const gatedOpenInserts = (p: CheckoutSessionsTable & { historyId: string; mode: 'test' | 'live' }, gate: Expression<SqlBool>) => {
  const delta = sessionDelta(p, true, false);
  return {
    session: (qc: QueryCreator<Database>) =>
      qc
        .insertInto('checkout_sessions')
        .columns(SESSION_COLUMNS)
        .expression(qc.selectNoFrom((eb) => SESSION_COLUMNS.map((c) => (c === 'amount_minor' ? eb.cast(eb.val(p[c]), 'bigint') : eb.val(p[c])).as(c))).where(gate)),
    history: (qc: QueryCreator<Database>) =>
      qc
        .insertInto('session_history')
        .columns(['id', 'session_id', 'from_status', 'to_status', 'cause', 'at'])
        .expression(
          qc
            .selectNoFrom((eb) => [eb.val(p.historyId).as('id'), eb.val(p.id).as('session_id'), eb.val(NO_STATUS).as('from_status'), eb.val('open').as('to_status'), eb.val('created').as('cause'), eb.val(p.created_at).as('at')])
            .where(gate),
        ),
    delta: (qc: QueryCreator<Database>) => gatedDeltaInsert(qc, delta, gate),
    /** The currency the invoice's recorded lines are billed in (no row when it has none). */
    lines: (qc: QueryCreator<Database>) => lineCurrencyQuery(qc, { merchantId: p.merchant_id, mode: p.mode, invoiceRef: p.invoice_ref }),
  };
};

/**
 * PostgreSQL: session create's three inserts (the session, its first history row, its
 * invoice-summary delta) and the read of the currency the invoice's recorded lines are billed
 * in, as one statement (data-modifying CTEs; the history row's foreign key is
 * checked at the statement's end, when the session is there). One round trip instead of four:
 * each is a wake-up of a backend and of the server, what the mixed-load stall at a million
 * sessions was made of (docs/performance.md).
 */
const openWithLineCurrency = precompiled((db, p: CheckoutSessionsTable & { historyId: string; mode: 'test' | 'live' }) =>
  lineCurrencyQuery(
    db
      .with('s', (w) => sessionInsert(w, p))
      .with('h', (w) => createdHistoryInsert(w, { id: p.historyId, sessionId: p.id, at: p.created_at }))
      .with('d', (w) => deltaInsert(w, sessionDelta(p, true, false))),
    { merchantId: p.merchant_id, mode: p.mode, invoiceRef: p.invoice_ref },
  ),
);

/** A line of the invoice billed in a currency that is not `currency`: what refuses SQLite's session insert below, and what the refusal then reads. */
const lineInOtherCurrency = (db: QueryCreator<Database>, p: { merchantId: string; mode: 'test' | 'live'; invoiceRef: string; currency: string }) =>
  lineCurrencyQuery(db, p).where('currency', '<>', p.currency);

/**
 * SQLite: the session inserted unless the invoice's recorded lines are billed in another
 * currency, in one statement (`INSERT … SELECT … WHERE NOT EXISTS`, the lines' unique
 * (merchant_id, invoice_ref, mode, code) index): the separate read of the lines' currency cost
 * about what an insert does inside the server, 26–39 µs of every create (docs/performance.md).
 * Its RETURNING says whether the session was written.
 */
const insertSessionInLineCurrency = precompiled((db, p: CheckoutSessionsTable & { mode: 'test' | 'live' }) =>
  db
    .insertInto('checkout_sessions')
    .columns(SESSION_COLUMNS)
    .expression(
      db
        .selectNoFrom((eb) => SESSION_COLUMNS.map((c) => eb.val(p[c]).as(c)))
        .where((eb) => eb.not(eb.exists(lineInOtherCurrency(db, { merchantId: p.merchant_id, mode: p.mode, invoiceRef: p.invoice_ref, currency: p.currency })))),
    )
    .returning('id'),
);
/** The currency of a line of the invoice that is not `currency` (SQLite, after insertSessionInLineCurrency wrote nothing). */
const otherLineCurrency = precompiled(lineInOtherCurrency);

/**
 * (none) → open for a session of an invoice: the session, its first history row and its
 * invoice-summary delta, unless the invoice's recorded lines are billed in another currency.
 * Returns that currency (undefined, or the session's own, when they are not), and the caller
 * refuses a session in another one (409 INVOICE_CURRENCY_MISMATCH) by throwing. Where a
 * statement is a round trip (the dialect's `oneStatementWrites`: PostgreSQL) it writes and reads
 * in one statement (openWithLineCurrency), and the caller's throw rolls the rows back with its
 * transaction; elsewhere (SQLite) it writes nothing on a mismatch (insertSessionInLineCurrency).
 */
export async function openInvoiceSession(trx: Trx, deps: Pick<TransitionDeps, 'ids'>, row: CheckoutSessionsTable & { status: 'open' }): Promise<string | undefined> {
  const mode = sessionMode(row.id);
  if (dialectOf(trx).oneStatementWrites) {
    const historyId = deps.ids.timeUuid(Date.parse(row.created_at));
    return (await openWithLineCurrency(trx, { ...row, historyId, mode }))[0]?.currency;
  }
  const written = await insertSessionInLineCurrency(trx, { ...row, mode });
  if (written.length === 0) {
    const other = (await otherLineCurrency(trx, { merchantId: row.merchant_id, mode, invoiceRef: row.invoice_ref, currency: row.currency }))[0]?.currency;
    // Under the write lock the line that stopped the insert is still there; were it not, the session must not be reported as written.
    if (other === undefined) throw new Error(`session ${row.id} was not written and its invoice has no line in another currency`);
    return other;
  }
  // History ids are UUIDv7 (time-ordered), as are its rows: the primary-key index takes them at its end.
  await insertCreatedHistory(trx, { id: deps.ids.timeUuid(Date.parse(row.created_at)), sessionId: row.id, at: row.created_at });
  await summaryOnSessionCreated(trx, row);
  return undefined;
}

// A move with one from-state and no event (open → pending, pending → open: every payment
// attempt's start and most of its ends), and every move's history row, compiled once.
const moveQuietly = precompiled((db, p: { id: string; from: SessionStatus; to: SessionStatus; at: string }) =>
  db.updateTable('checkout_sessions').set({ status: p.to, updated_at: p.at }).where('id', '=', p.id).where('status', '=', p.from).returningAll(),
);
const insertHistory = precompiled((db, p: { id: string; sessionId: string; from: string; to: SessionStatus; cause: string; at: string }) =>
  db.insertInto('session_history').values({ id: p.id, session_id: p.sessionId, from_status: p.from, to_status: p.to, cause: p.cause, at: p.at }),
);

/**
 * Applies a transition; returns the updated session, or null when the session was not in a
 * from-state (someone else won the race, or the move does not apply).
 */
export async function applyTransition(
  trx: Trx,
  deps: TransitionDeps,
  sessionId: string,
  t: Transition,
): Promise<CheckoutSessionsTable | null> {
  const { from, to, event } = plan(t);
  const nowDate = deps.clock.now();
  const now = nowDate.toISOString();
  // With one from-state, a conditional update that wins says what the status was: no read first.
  const only = from.length === 1 ? from[0] : undefined;
  let before: SessionStatus;
  if (only !== undefined) {
    before = only;
  } else {
    const read = await trx.selectFrom('checkout_sessions').select('status').where('id', '=', sessionId).executeTakeFirst();
    if (!read || !from.includes(read.status)) return null;
    before = read.status;
  }
  const updated =
    only !== undefined && !event && t.kind !== 'payment_confirmed'
      ? (await moveQuietly(trx, { id: sessionId, from: only, to, at: now }))[0]
      : await trx
          .updateTable('checkout_sessions')
          .set({
            status: to,
            updated_at: now,
            ...(event ? { finalized_at: now } : {}),
            ...(t.kind === 'payment_confirmed' ? { paid_rail: t.rail } : {}),
          })
          .where('id', '=', sessionId)
          .where('status', 'in', from)
          .returningAll()
          .executeTakeFirst();
  if (!updated) return null;
  await insertHistory(trx, { id: deps.ids.timeUuid(nowDate.getTime()), sessionId, from: before, to, cause: t.cause, at: now });
  if (event) await recordTerminalEvent(trx, deps, updated, event);
  await summaryOnSessionMoved(trx, updated);
  // The invoice's lines are remitted as far as its collected money covers them (invoice-allocation.ts).
  if (t.kind === 'payment_confirmed' && (await reallocateInvoice(trx, updated.merchant_id, sessionMode(updated.id), updated.invoice_ref, now))) {
    await summaryOnLinesChanged(trx, updated.merchant_id, updated.invoice_ref);
  }
  if (event) await settleLeftovers(trx, sessionId, now);
  return updated;
}

/** Applies a transition that must happen; a lost race becomes 409 SESSION_NOT_PAYABLE. */
export async function requireTransition(trx: Trx, deps: TransitionDeps, sessionId: string, t: Transition): Promise<CheckoutSessionsTable> {
  const s = await applyTransition(trx, deps, sessionId, t);
  if (!s) throw new AppError('SESSION_NOT_PAYABLE', 'session is not open for payment; refresh the session before continuing');
  return s;
}

/** Once final, nothing else on the session can be paid: pending attempts expire, live slips are voided. */
async function settleLeftovers(trx: Trx, sessionId: string, now: string): Promise<void> {
  await expireSessionAttempts(trx, sessionId, now);
  await voidSessionSlips(trx, sessionId, now);
}

function eventPayload(eventId: string, type: EventType, s: CheckoutSessionsTable, createdAt: string): string {
  return JSON.stringify({
    id: eventId,
    type,
    api_version: '2026-06',
    created_at: createdAt,
    data: {
      session: {
        id: s.id,
        status: s.status,
        amount_minor: s.amount_minor,
        currency: s.currency,
        invoice_ref: s.invoice_ref,
        metadata: JSON.parse(s.metadata) as unknown,
        paid_rail: s.paid_rail,
        finalized_at: s.finalized_at,
      },
    },
  });
}

/** Runs inside the transaction that records an event (the webhook outbox adds its delivery rows). */
export interface EventSink {
  eventRecorded(trx: Trx, event: EventsTable): Promise<void>;
}

async function recordTerminalEvent(trx: Trx, deps: TransitionDeps, s: CheckoutSessionsTable, type: EventType): Promise<void> {
  const now = deps.clock.now();
  // `evt_` + 24 base62 characters as before, time-ordered (ids.ts `timeOrderedBase62`): the
  // injected clock's milliseconds, then 16 of the injected generator's (95 bits). The event index,
  // the deliveries' (event_id, endpoint_id) key and the dispatcher's reads then take new entries
  // at their end rather than on a random page. Event ids are not secrets: each is
  // sent to the merchant with its created_at.
  const id = `evt_${base62Millis(now.getTime())}${deps.ids.token('evt', 16).slice('evt_'.length)}`;
  const createdAt = now.toISOString();
  const row: EventsTable = { id, type, session_id: s.id, integration_id: s.integration_id, payload: eventPayload(id, type, s, createdAt), created_at: createdAt };
  await trx.insertInto('events').values(row).execute();
  await deps.outbox.eventRecorded(trx, row);
}

/**
 * After a decline: a decline alone never ends the session (the payer may try again, on the same
 * rail or another). The session fails only when no payment can complete any more (its
 * integration is disabled or accepts no rail) or at the anti-abuse cap of MAX_DECLINED_ATTEMPTS
 * declines (docs/lifecycle.md says why 20). Returns true when it failed.
 */
export async function failIfTooManyDeclines(trx: Trx, deps: TransitionDeps, sessionId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('payment_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('session_id', '=', sessionId)
    .where('status', '=', 'declined')
    .executeTakeFirstOrThrow();
  if (Number(row.n) >= MAX_DECLINED_ATTEMPTS) {
    return (await applyTransition(trx, deps, sessionId, { kind: 'failed', cause: `${MAX_DECLINED_ATTEMPTS} declined payment attempts (anti-abuse cap)` })) !== null;
  }
  const integration = await trx
    .selectFrom('checkout_sessions as s')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .select(['i.allowed_rails', 'i.disabled_at'])
    .where('s.id', '=', sessionId)
    .executeTakeFirst();
  const rails = integration ? (JSON.parse(integration.allowed_rails) as unknown[]) : [];
  if (integration && integration.disabled_at === null && rails.length > 0) return false;
  return (await applyTransition(trx, deps, sessionId, { kind: 'failed', cause: 'declined, and no payment method can complete any more' })) !== null;
}

/** Expires the session if it is open and past expires_at; returns true when it did. */
/** A session still open past its time: due for the lazy expiry (the sweeper's query says the same in SQL). */
export const isDue = (s: Pick<CheckoutSessionsTable, 'status' | 'expires_at'> | undefined, now: Date): boolean =>
  s !== undefined && s.status === 'open' && s.expires_at <= now.toISOString();

export async function expireIfDue(trx: Trx, deps: TransitionDeps, sessionId: string): Promise<boolean> {
  const s = await trx.selectFrom('checkout_sessions').select(['status', 'expires_at']).where('id', '=', sessionId).executeTakeFirst();
  if (!isDue(s, deps.clock.now())) return false;
  return (await applyTransition(trx, deps, sessionId, { kind: 'expired', cause: 'expires_at passed while open' })) !== null;
}

const expiryOf = precompiled((db, p: { id: string }) => db.selectFrom('checkout_sessions').select(['status', 'expires_at']).where('id', '=', p.id));

/**
 * Lazy expiry of one session before a read or a request that may fail, in a transaction of its
 * own (a request that then fails, 409 SESSION_NOT_PAYABLE on an expired session, must not roll
 * the expiry and its event back). A plain read first: the write transaction (SQLite's write
 * lock and a commit, PostgreSQL's BEGIN and COMMIT) only for a session that is due; expireIfDue
 * checks again inside it, so a race with another change stays safe.
 */
export async function expireDue(deps: TransitionDeps & { db: Db }, sessionId: string): Promise<void> {
  const [s] = await expiryOf(deps.db, { id: sessionId });
  if (!isDue(s, deps.clock.now())) return;
  await deps.db.transaction().execute((trx) => expireIfDue(trx, deps, sessionId));
}

/** expireDue for sessions already read as due (a list's): one transaction for them all, each checked again inside it. */
export async function expireAllDue(deps: TransitionDeps & { db: Db }, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await deps.db.transaction().execute(async (trx) => {
    for (const id of sessionIds) await expireIfDue(trx, deps, id);
  });
}
