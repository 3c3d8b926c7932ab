import type { Transaction } from 'kysely';
import type { Database, EventsTable, IntegrationsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { timeOrderedBase62 } from '../../lib/ids';
import { holdPendingDeliveries } from './hold';
import { columnList } from '../../db/precompiled';
import { padTail, powerOfTwoChunks, precompiledValuesBySize } from './batch-sql';
import { isSuccessStatus, nextDeliveryState } from '../../domain/retry-policy';

/**
 * Writing what an attempt did (outcome-queue.ts batches them, one transaction per batch): the
 * attempt row of the delivery log and the delivery's new state, decided by retry-policy.ts.
 * Every update is conditional on this dispatcher still holding the lease (`claimed_by`).
 */

type Claimed = Pick<WebhookDeliveriesTable, 'id' | 'event_id' | 'endpoint_id' | 'attempt_count' | 'schedule_step' | 'manual_requested_at'>;
export type Job = Claimed & { event: Pick<EventsTable, 'id' | 'type' | 'payload'>; endpoint: WebhookEndpointsTable & { mode: IntegrationsTable['mode'] } };

export interface AttemptResult {
  job: Job;
  kind: 'initial' | 'automatic_retry' | 'manual';
  startedAt: string;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  retryAfter: string | null;
  aborted: boolean;
  /** JSON of the headers sent. */
  requestHeaders: string;
  /** JSON of the receiver's allow-listed headers (http-attempt.ts), null without an answer. */
  responseHeaders: string | null;
  /** No attempt can ever succeed (the event's body is gone): the delivery fails now, no retry. */
  final?: boolean;
}

/** The error of a delivery whose event body `db:prune` emptied (WEBHOOK_BODY_RETENTION_DAYS). */
const BODY_PAST_RETENTION = 'event body past retention';

/**
 * A claimed delivery whose event payload is '' (pruned while it was queued: a redelivery racing
 * `db:prune`) is never POSTed with an empty body: it is recorded as failed, with this attempt.
 */
export function bodyPastRetention(job: Job, kind: AttemptResult['kind'], startedAt: string): AttemptResult {
  return { job, kind, startedAt, latencyMs: 0, statusCode: null, error: BODY_PAST_RETENTION, excerpt: null, retryAfter: null, aborted: false, requestHeaders: '{}', responseHeaders: null, final: true };
}

export type Outcome =
  | { type: 'attempt'; result: AttemptResult }
  /** Claimed, but its endpoint was disabled meanwhile: held, no attempt made. */
  | { type: 'hold'; job: Job };


const isSuccess = (r: AttemptResult): boolean => isSuccessStatus(r.statusCode);

function attemptRow(r: AttemptResult, next: string | null, error: string | null) {
  const ok = isSuccess(r);
  return {
    id: `wha_${timeOrderedBase62(24)}`,
    delivery_id: r.job.id,
    event_id: r.job.event_id,
    endpoint_id: r.job.endpoint_id,
    attempt_number: r.job.attempt_count + 1,
    kind: r.kind,
    url: r.job.endpoint.url,
    started_at: r.startedAt,
    latency_ms: r.latencyMs,
    outcome: ok ? ('succeeded' as const) : ('failed' as const),
    status_code: r.statusCode,
    error,
    response_excerpt: r.excerpt,
    request_headers: r.requestHeaders,
    response_headers: r.responseHeaders,
    next_attempt_at: next,
  };
}

/** Every column of an attempt row (checked against `attemptRow` by the type). */
const ATTEMPT_COLUMNS = columnList<ReturnType<typeof attemptRow>>()([
  'id',
  'delivery_id',
  'event_id',
  'endpoint_id',
  'attempt_number',
  'kind',
  'url',
  'started_at',
  'latency_ms',
  'outcome',
  'status_code',
  'error',
  'response_excerpt',
  'request_headers',
  'response_headers',
  'next_attempt_at',
]);

/** `n` attempt rows in one insert (a power-of-two chunk: few shapes, each compiled once; an insert of values reads no table to explain). */
const insertAttempts = precompiledValuesBySize(
  (db, p, n) =>
    db.insertInto('webhook_delivery_attempts').values(
      Array.from({ length: n }, (_, i) => Object.fromEntries(ATTEMPT_COLUMNS.map((c) => [c, p[`${c}${i}`]])) as unknown as ReturnType<typeof attemptRow>),
    ),
  // Row by row, each in ATTEMPT_COLUMNS order: the order `values` of a row is passed in.
  (n) => Array.from({ length: n }, (_, i) => ATTEMPT_COLUMNS.map((c) => `${c}${i}`)).flat(),
);

/**
 * `n` claimed deliveries (a padded id list) marked succeeded, compiled once per size;
 * last_attempt_at / last_status_code come from the attempt rows just written.
 */
const markSucceeded = precompiledValuesBySize((db, p, n) =>
  db
    .updateTable('webhook_deliveries as d')
    .set((eb) => ({
      status: 'succeeded',
      held_at: null,
      attempt_count: eb('d.attempt_count', '+', 1),
      next_attempt_at: null,
      manual_requested_at: null,
      claimed_by: null,
      locked_until: null,
      last_attempt_at: eb.selectFrom('webhook_delivery_attempts as a').select('a.started_at').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.seq', 'desc').limit(1),
      last_status_code: eb.selectFrom('webhook_delivery_attempts as a').select('a.status_code').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.seq', 'desc').limit(1),
      last_error: null,
      delivered_at: p.now as string,
      updated_at: p.now as string,
    }))
    .where(
      'd.id',
      'in',
      Array.from({ length: n }, (_, i) => p[`id${i}`] as string),
    )
    .where('d.claimed_by', '=', p.owner as string),
  (n) => ['owner', 'now', ...Array.from({ length: n }, (_, i) => `id${i}`)],
);

export function createOutcomeWriter(opts: { clock: Clock; delaysS: readonly number[]; owner: string }) {
  const { clock, owner } = opts;
  const delays = opts.delaysS;

  async function writeSuccesses(trx: Transaction<Database>, results: AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    for (const chunk of powerOfTwoChunks(results)) {
      const values: unknown[] = [];
      for (const r of chunk) {
        const row = attemptRow(r, null, r.error);
        for (const column of ATTEMPT_COLUMNS) values.push(row[column]);
      }
      await insertAttempts(trx, chunk.length, values);
    }
    const params: unknown[] = [owner, clock.now().toISOString()];
    for (const r of results) params.push(r.job.id);
    await markSucceeded(trx, padTail(params, 2), params);
  }

  /** A batch of outcomes: the common case, a 2xx, in two statements for all of them; the rest one by one. */
  async function writeBatch(trx: Transaction<Database>, outcomes: readonly Outcome[]): Promise<void> {
    const ok: AttemptResult[] = [];
    for (const o of outcomes) if (o.type === 'attempt' && isSuccess(o.result)) ok.push(o.result);
    await writeSuccesses(trx, ok);
    for (const o of outcomes) if (!(o.type === 'attempt' && isSuccess(o.result))) await writeOutcome(trx, o);
  }

  async function writeOutcome(trx: Transaction<Database>, outcome: Outcome): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    const job = outcome.type === 'hold' ? outcome.job : outcome.result.job;
    const endpoint = await trx.selectFrom('webhook_endpoints').select(['status', 'disabled_reason']).where('id', '=', job.endpoint_id).executeTakeFirst();
    const reason = endpoint?.disabled_reason ?? 'disabled';
    if (outcome.type === 'hold') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ held_at: nowIso, next_attempt_at: null, claimed_by: null, locked_until: null, last_error: `held: endpoint disabled: ${reason}`, updated_at: nowIso })
        .where('id', '=', job.id)
        .where('claimed_by', '=', owner)
        .execute();
      return;
    }
    const r = outcome.result;
    const state: ReturnType<typeof nextDeliveryState> = r.final ? { status: 'failed', step: job.schedule_step } : nextDeliveryState({ step: job.schedule_step }, r, { delaysS: delays, now, endpointActive: endpoint?.status === 'active' });
    const next = state.status === 'pending' ? state.nextAttemptAt.toISOString() : null;
    const goneReason = `receiver answered 410 Gone at ${nowIso}`;
    const error =
      r.error ??
      (state.status === 'succeeded'
        ? null
        : r.statusCode === 410
          ? 'receiver answered 410 Gone: endpoint disabled, delivery held'
          : state.status === 'held'
            ? `receiver answered ${r.statusCode}; held: endpoint disabled: ${reason}`
            : `receiver answered ${r.statusCode}`);
    await trx.insertInto('webhook_delivery_attempts').values(attemptRow(r, next, error)).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: state.status === 'held' ? 'pending' : state.status,
        // Held: no next attempt until the endpoint is enabled. Any other outcome ends a release
        // from hold, except our own shutdown (the delivery keeps its place in the order).
        ...(r.aborted ? {} : { held_at: state.status === 'held' ? nowIso : null }),
        attempt_count: job.attempt_count + 1,
        schedule_step: state.step,
        next_attempt_at: next,
        ...(r.aborted ? {} : { manual_requested_at: null }),
        claimed_by: null,
        locked_until: null,
        last_attempt_at: r.startedAt,
        last_status_code: r.statusCode,
        last_error: error,
        ...(state.status === 'succeeded' ? { delivered_at: nowIso } : {}),
        updated_at: nowIso,
      })
      .where('id', '=', job.id)
      .where('claimed_by', '=', owner)
      .execute();
    if (state.status === 'held' && state.disableEndpoint) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: goneReason, updated_at: nowIso })
        .where('id', '=', job.endpoint_id)
        .where('status', '=', 'active')
        .execute();
      await holdPendingDeliveries(trx, job.endpoint_id, endpoint?.status === 'active' ? goneReason : reason, now);
    }
  }

  return { writeBatch };
}
