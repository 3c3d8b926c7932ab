import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database';
import type { Transaction } from 'kysely';
import type { Database, EventsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../db/schema';
import type { Clock } from '../lib/clock';
import { randomBase62 } from '../lib/ids';
import { onOutboxWrite } from './outbox';
import { activeSecrets, deliveryHeaders } from './signing';

/**
 * The webhook dispatcher: sends due deliveries from the outbox (docs/webhooks.md).
 *
 * - Wakes when the outbox hook records a delivery (after the transaction commits, see
 *   outbox.ts), when an attempt finishes, at the next due retry, and at least every
 *   `pollIntervalMs` (deliveries queued by another process, e.g. `webhooks:redeliver`).
 *   All scheduling decisions read the injected clock, so tests move time.
 * - Claims a batch of due deliveries with one `UPDATE … RETURNING` (a lease: claimed_by +
 *   locked_until), loads their events and endpoints in two queries, and runs at most
 *   `concurrency` HTTP attempts at once over Node's fetch (undici: keep-alive pool).
 * - Each attempt is bounded by `attemptTimeoutMs` (10 s), covering connect, headers and
 *   the response excerpt. Outcomes are written in batches (one transaction per batch):
 *   an attempt row (the delivery log) and the delivery's new state.
 * - 2xx: succeeded. 410: failed, and the endpoint is disabled (its other pending
 *   deliveries fail with it). Anything else (non-2xx, 3xx included, timeout, refused or
 *   reset connection): retried after the next delay of `retryDelaysS`, or later when a
 *   429/503 carries a longer `Retry-After` (capped at 24 h); after the last delay the
 *   delivery is failed.
 * - A process that dies mid-attempt leaves a lease behind. It lapses after the timeout
 *   plus `LEASE_MARGIN_MS`; a dispatcher starting on the same host releases at once the
 *   leases of a process id that no longer runs, so a restart resends immediately.
 * - `stop()` stops claiming, waits up to `shutdownGraceMs` for attempts in flight, aborts
 *   the rest (recorded as aborted and due again at once), and flushes every outcome.
 */

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const LEASE_MARGIN_MS = 30_000;
export const MAX_RETRY_AFTER_S = 86_400;
export const RESPONSE_EXCERPT_BYTES = 1024;
/** Cap on the stored JSON of a response's headers (the request's are ours and small). */
export const RESPONSE_HEADERS_BYTES = 4096;
export const USER_AGENT = 'Paydesk-Webhooks/2026-06';

export interface DispatcherLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  /** WEBHOOK_RETRY_DELAYS_S: the delay before retry 1, 2, … */
  retryDelaysS: readonly number[];
  /** Attempts in flight at once, across all endpoints. Default 32. */
  concurrency?: number;
  /** Per-attempt bound (connect + answer + excerpt). Default 10 s. */
  attemptTimeoutMs?: number;
  /** Longest sleep between looks at the outbox. Default 500 ms. */
  pollIntervalMs?: number;
  /** Deliveries claimed per query. Default 64. */
  batchSize?: number;
  /** How long `stop()` waits for attempts in flight before aborting them. Default 8 s. */
  shutdownGraceMs?: number;
  log?: DispatcherLog;
}

export interface Dispatcher {
  /** Starts the loop (and releases leases of dead processes on this host). */
  start(): Promise<void>;
  /** Look at the outbox now. */
  wake(): void;
  /** Stops claiming, waits for (then aborts) attempts in flight, flushes their outcomes. */
  stop(): Promise<void>;
  /** Resolves once nothing is in flight and nothing is due (tests, benchmark). */
  idle(): Promise<void>;
  readonly owner: string;
  inFlight(): number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook dispatcher, present when the app runs background jobs. */
    webhookDispatcher?: Dispatcher;
  }
}

type Claimed = Pick<WebhookDeliveriesTable, 'id' | 'event_id' | 'endpoint_id' | 'attempt_count' | 'schedule_step' | 'manual_requested_at'>;
type Job = Claimed & { event: Pick<EventsTable, 'id' | 'type' | 'payload'>; endpoint: WebhookEndpointsTable };

interface AttemptResult {
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
  /** JSON of the receiver's headers (at most RESPONSE_HEADERS_BYTES), null without an answer. */
  responseHeaders: string | null;
}

type Outcome =
  | { type: 'attempt'; result: AttemptResult }
  | { type: 'skip'; job: Job; reason: string };

const isSuccess = (r: AttemptResult): boolean => r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Seconds from a Retry-After value (delta-seconds or HTTP-date), or null. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), MAX_RETRY_AFTER_S);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), MAX_RETRY_AFTER_S);
}

/** A readable cause for a failed fetch: timeout, refused, reset, DNS, … */
export function describeFetchError(err: unknown, timeoutMs: number, shuttingDown: boolean): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (e?.name === 'AbortError' || shuttingDown) return shuttingDown ? 'aborted: server shutting down' : 'aborted';
  const code = e?.cause?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    EPIPE: 'connection closed by the receiver',
    ENOTFOUND: 'DNS lookup failed',
    EAI_AGAIN: 'DNS lookup failed (temporary)',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    UND_ERR_SOCKET: 'connection closed by the receiver',
    UND_ERR_HEADERS_TIMEOUT: `timed out waiting for headers`,
    UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
    UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  const detail = e?.cause?.message ?? e?.message ?? String(err);
  return code ? `${detail} (${code})` : detail;
}

/**
 * The receiver's response headers as a JSON object, keeping whole headers in arrival order
 * while the JSON stays within `maxBytes`; what did not fit is counted under `…truncated`.
 */
export function headersJson(headers: Headers, maxBytes: number): string {
  const out: Record<string, string> = {};
  let size = 2;
  let dropped = 0;
  for (const [name, value] of headers) {
    const add = Buffer.byteLength(JSON.stringify(name)) + Buffer.byteLength(JSON.stringify(value)) + 2;
    if (dropped > 0 || size + add > maxBytes - 40) {
      dropped++;
      continue;
    }
    out[name] = value;
    size += add;
  }
  if (dropped > 0) out['…truncated'] = `${dropped} more header${dropped === 1 ? '' : 's'}`;
  return JSON.stringify(out);
}

async function readExcerpt(res: Response, maxBytes: number): Promise<string | null> {
  if (!res.body) return null;
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared === 0) {
    await res.body.cancel().catch(() => {});
    return null;
  }
  if (declared > 0 && declared <= maxBytes) {
    // Small and announced: one read, and the connection goes back to the keep-alive pool.
    const text = await res.text();
    return text.length > 0 ? text : null;
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      if (size > maxBytes) {
        truncated = true;
        break;
      }
    }
  } catch {
    truncated = true;
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
  }
  const all = Buffer.concat(chunks).subarray(0, maxBytes);
  // Cut at a character boundary: drop a partial UTF-8 sequence at the end.
  let text = all.toString('utf8');
  if (truncated) text = `${text.replace(/\uFFFD+$/, '')}…`;
  return text.length > 0 ? text : null;
}

/** This process's identity in leases: `host:pid:token`. */
function ownerId(): string {
  return `${hostname()}:${process.pid}:${randomBase62(8)}`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const { db, clock } = opts;
  const delays = opts.retryDelaysS;
  const concurrency = opts.concurrency ?? 32;
  const timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const pollMs = opts.pollIntervalMs ?? 500;
  const batchSize = opts.batchSize ?? 64;
  const graceMs = opts.shutdownGraceMs ?? 8_000;
  const owner = ownerId();
  const shutdown = new AbortController();
  const controllers = new Set<AbortController>();

  const inFlight = new Map<string, Promise<void>>();
  let started = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeQueued = false;
  let ticking: Promise<void> | undefined;
  let tickAgain = false;
  let unsubscribe: (() => void) | undefined;

  let pendingOutcomes: Array<{ outcome: Outcome; done: () => void }> = [];
  let flushing: Promise<void> | undefined;

  function wake(): void {
    if (!started || stopping || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      void tick();
    });
  }

  function tick(): Promise<void> {
    if (ticking) {
      tickAgain = true;
      return ticking;
    }
    ticking = (async () => {
      try {
        do {
          tickAgain = false;
          while (!stopping && inFlight.size < concurrency) {
            const want = Math.min(batchSize, concurrency - inFlight.size);
            const jobs = await claimDue(want);
            for (const job of jobs) launch(job);
            if (jobs.length < want) break;
          }
        } while (tickAgain && !stopping);
        await arm();
      } catch (err) {
        opts.log?.error({ err }, 'webhook dispatcher tick failed');
        armIn(pollMs);
      } finally {
        ticking = undefined;
      }
    })();
    return ticking;
  }

  function armIn(ms: number): void {
    if (stopping) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void tick();
    }, ms);
    timer.unref();
  }

  /** Sleeps until the next due retry, or the poll interval, whichever is sooner. */
  async function arm(): Promise<void> {
    if (stopping) return;
    const next = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    const at = next?.at ? Date.parse(next.at) - clock.now().getTime() : pollMs;
    armIn(Math.max(5, Math.min(pollMs, at)));
  }

  async function claimDue(limit: number): Promise<Job[]> {
    const now = clock.now();
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS).toISOString();
    const busy = [...inFlight.keys()];
    const claimed = await db
      .updateTable('webhook_deliveries')
      .set({ claimed_by: owner, locked_until: lease })
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', nowIso)
          .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', nowIso)]));
        if (busy.length > 0) q = q.where('id', 'not in', busy);
        return q.orderBy('next_attempt_at').limit(limit);
      })
      .returning(['id', 'event_id', 'endpoint_id', 'attempt_count', 'schedule_step', 'manual_requested_at'])
      .execute();
    if (claimed.length === 0) return [];
    const eventIds = [...new Set(claimed.map((c) => c.event_id))];
    const endpointIds = [...new Set(claimed.map((c) => c.endpoint_id))];
    const [events, endpoints] = await Promise.all([
      db.selectFrom('events').select(['id', 'type', 'payload']).where('id', 'in', eventIds).execute(),
      db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', endpointIds).execute(),
    ]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));
    return claimed.map((c) => ({ ...c, event: eventById.get(c.event_id)!, endpoint: endpointById.get(c.endpoint_id)! }));
  }

  function launch(job: Job): void {
    const p = (async () => {
      let outcome: Outcome;
      if (job.endpoint.status !== 'active') {
        outcome = { type: 'skip', job, reason: `endpoint disabled${job.endpoint.disabled_reason ? `: ${job.endpoint.disabled_reason}` : ''}` };
      } else {
        outcome = { type: 'attempt', result: await attempt(job) };
      }
      await record(outcome);
    })()
      .catch((err: unknown) => opts.log?.error({ err, delivery: job.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(job.id);
        wake();
      });
    inFlight.set(job.id, p);
  }

  async function attempt(job: Job): Promise<AttemptResult> {
    const started = clock.now();
    const kind = job.manual_requested_at ? 'manual' : job.attempt_count === 0 ? 'initial' : 'automatic_retry';
    const t = Math.floor(started.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...deliveryHeaders(job.event, activeSecrets(job.endpoint, started), t),
    };
    const t0 = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let retryAfter: string | null = null;
    let responseHeaders: string | null = null;
    // One controller per attempt (cheaper than AbortSignal.any + AbortSignal.timeout at
    // a thousand attempts a second); stop() aborts every live one.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    controllers.add(controller);
    try {
      const res = await fetch(job.endpoint.url, { method: 'POST', headers, body: job.event.payload, redirect: 'manual', signal: controller.signal });
      statusCode = res.status;
      retryAfter = res.headers.get('retry-after');
      responseHeaders = headersJson(res.headers, RESPONSE_HEADERS_BYTES);
      excerpt = await readExcerpt(res, RESPONSE_EXCERPT_BYTES);
    } catch (err) {
      error = describeFetchError(err, timeoutMs, shutdown.signal.aborted);
    } finally {
      clearTimeout(timer);
      controllers.delete(controller);
    }
    return {
      job,
      kind,
      startedAt: started.toISOString(),
      latencyMs: Math.round(performance.now() - t0),
      statusCode,
      error,
      excerpt,
      retryAfter,
      aborted: statusCode === null && shutdown.signal.aborted,
      requestHeaders: JSON.stringify(headers),
      responseHeaders,
    };
  }

  function record(outcome: Outcome): Promise<void> {
    return new Promise<void>((resolve) => {
      pendingOutcomes.push({ outcome, done: resolve });
      if (!flushing) flushing = new Promise<void>((r) => setImmediate(r)).then(flush);
    });
  }

  async function flush(): Promise<void> {
    while (pendingOutcomes.length > 0) {
      const batch = pendingOutcomes;
      pendingOutcomes = [];
      try {
        await db.transaction().execute(async (trx) => {
          // The common case, a 2xx, is written for the whole batch in two statements.
          const ok = batch.map((b) => b.outcome).filter((o): o is Extract<Outcome, { type: 'attempt' }> => o.type === 'attempt' && isSuccess(o.result));
          for (let i = 0; i < ok.length; i += 60) await writeSuccesses(trx, ok.slice(i, i + 60).map((o) => o.result));
          for (const { outcome } of batch) if (!(outcome.type === 'attempt' && isSuccess(outcome.result))) await writeOutcome(trx, outcome);
        });
      } catch (err) {
        // The leases lapse and the attempts are made again: at-least-once.
        opts.log?.error({ err, count: batch.length }, 'webhook outcomes could not be written');
      }
      for (const b of batch) b.done();
    }
    flushing = undefined;
  }

  function attemptRow(r: AttemptResult, next: string | null, error: string | null) {
    const ok = isSuccess(r);
    return {
      id: `wha_${randomBase62(24)}`,
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

  async function writeSuccesses(trx: Transaction<Database>, results: AttemptResult[]): Promise<void> {
    const nowIso = clock.now().toISOString();
    await trx
      .insertInto('webhook_delivery_attempts')
      .values(results.map((r) => attemptRow(r, null, r.error)))
      .execute();
    // last_attempt_at / last_status_code come from the attempt rows just written.
    await trx
      .updateTable('webhook_deliveries as d')
      .set((eb) => ({
        status: 'succeeded',
        attempt_count: eb('d.attempt_count', '+', 1),
        next_attempt_at: null,
        manual_requested_at: null,
        claimed_by: null,
        locked_until: null,
        last_attempt_at: eb.selectFrom('webhook_delivery_attempts as a').select('a.started_at').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.seq', 'desc').limit(1),
        last_status_code: eb.selectFrom('webhook_delivery_attempts as a').select('a.status_code').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.seq', 'desc').limit(1),
        last_error: null,
        delivered_at: nowIso,
        updated_at: nowIso,
      }))
      .where(
        'd.id',
        'in',
        results.map((r) => r.job.id),
      )
      .where('d.claimed_by', '=', owner)
      .execute();
  }

  async function writeOutcome(trx: Transaction<Database>, outcome: Outcome): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    if (outcome.type === 'skip') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, claimed_by: null, locked_until: null, last_error: outcome.reason, updated_at: nowIso })
        .where('id', '=', outcome.job.id)
        .where('claimed_by', '=', owner)
        .execute();
      return;
    }
    const r = outcome.result;
    const job = r.job;
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    let status: WebhookDeliveriesTable['status'];
    let next: string | null = null;
    let step = job.schedule_step;
    if (ok) status = 'succeeded';
    else if (r.aborted) {
      status = 'pending'; // shutting down: not the receiver's fault, due again at once
      next = nowIso;
    } else if (gone) status = 'failed';
    else {
      step += 1;
      const base = delays[step - 1];
      if (base === undefined) status = 'failed';
      else {
        status = 'pending';
        let delayS = base;
        if (r.statusCode === 429 || r.statusCode === 503) delayS = Math.max(base, parseRetryAfter(r.retryAfter, now) ?? 0);
        next = new Date(now.getTime() + delayS * 1000).toISOString();
      }
    }
    const error = r.error ?? (ok ? null : gone ? 'receiver answered 410 Gone: endpoint disabled' : `receiver answered ${r.statusCode}`);
    await trx.insertInto('webhook_delivery_attempts').values(attemptRow(r, next, error)).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempt_count: job.attempt_count + 1,
        schedule_step: step,
        next_attempt_at: next,
        ...(r.aborted ? {} : { manual_requested_at: null }),
        claimed_by: null,
        locked_until: null,
        last_attempt_at: r.startedAt,
        last_status_code: r.statusCode,
        last_error: error,
        ...(ok ? { delivered_at: nowIso } : {}),
        updated_at: nowIso,
      })
      .where('id', '=', job.id)
      .where('claimed_by', '=', owner)
      .execute();
    if (gone) {
      const reason = `receiver answered 410 Gone at ${nowIso}`;
      await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: reason, updated_at: nowIso })
        .where('id', '=', job.endpoint_id)
        .where('status', '=', 'active')
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, last_error: `endpoint disabled: ${reason}`, updated_at: nowIso })
        .where('endpoint_id', '=', job.endpoint_id)
        .where('status', '=', 'pending')
        .where((w) => w.or([w('claimed_by', 'is', null), w('locked_until', '<=', nowIso)]))
        .execute();
    }
  }

  /** Leases of a process on this host that no longer runs are released: its attempts are due again now. */
  async function releaseOrphanedLeases(): Promise<void> {
    const nowIso = clock.now().toISOString();
    const held = await db
      .selectFrom('webhook_deliveries')
      .select('claimed_by')
      .distinct()
      .where('status', '=', 'pending')
      .where('locked_until', '>', nowIso)
      .execute();
    const host = hostname();
    for (const { claimed_by } of held) {
      if (!claimed_by) continue;
      const [h, pidText] = claimed_by.split(':');
      const pid = Number(pidText);
      if (h !== host || !Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
      await db
        .updateTable('webhook_deliveries')
        .set({ claimed_by: null, locked_until: null })
        .where('claimed_by', '=', claimed_by)
        .where('status', '=', 'pending')
        .execute();
    }
  }

  return {
    owner,
    inFlight: () => inFlight.size,
    async start() {
      if (started) return;
      started = true;
      await releaseOrphanedLeases();
      unsubscribe = onOutboxWrite(wake);
      await tick();
    },
    wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      await ticking;
      const waiting = Promise.allSettled([...inFlight.values()]);
      const inTime = await Promise.race([waiting.then(() => true), sleep(graceMs).then(() => false)]);
      if (!inTime) {
        opts.log?.warn({ inFlight: inFlight.size }, 'webhook attempts still in flight at shutdown: aborting them (they will be sent again)');
        shutdown.abort();
        for (const c of controllers) c.abort(new DOMException('server shutting down', 'AbortError'));
        await Promise.allSettled([...inFlight.values()]);
      }
      await flushing;
    },
    async idle() {
      // Whatever is due and not leased elsewhere is claimed by tick(); done when none was.
      while (!stopping) {
        await tick();
        if (inFlight.size === 0) return;
        await Promise.allSettled([...inFlight.values()]);
      }
    },
  };
}
