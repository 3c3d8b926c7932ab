import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config';
import type { Db } from '../db/database';
import { dialectOf } from '../db/dialect';
import { schemaStatus } from '../db/schema-version';
import { groupCommitStats, roundTrips, transactionRetries, type CheckpointStats, type PoolStats } from '../db/stats';
import { commitBatchSizes, operationCounts, sweeperTickSeconds } from '../observe';
import { buildInfo } from '../version';

/**
 * Prometheus metrics (docs/operations.md "Metrics"), off unless asked for:
 * - `METRICS=on`: `GET /metrics` on the listening port (put it behind the proxy's own rule:
 *   the instance's numbers are not for the public);
 * - `METRICS_PORT=N`: served on a port of its own bound to 127.0.0.1, for a scraper on the host.
 * What each scrape reads: the request counters and latency histogram (by route pattern, never the
 * raw path), Node's own (event-loop delay, heap, GC), the database pool, transaction retries,
 * SQLite commit batches and checkpoints, the webhook backlog (one query), lease takeovers, sweeper
 * ticks, rate-limit store fall-backs and the build. The request hook is only installed when
 * metrics are on, so an instance without them pays nothing per request.
 */
interface MetricsSources {
  /** The PostgreSQL pool behind the app's database (its size and waiting clients). */
  pool?: PoolStats | undefined;
  /** The SQLite checkpoint worker (its checkpoint count and times). */
  checkpointer?: { stats(): Promise<CheckpointStats> } | null;
}

interface Metrics {
  readonly registry: Registry;
  /** Where `/metrics` is served on METRICS_PORT, once listening (null otherwise). */
  readonly url: string | null;
  /** Adds what only the process that opened the database knows (runtime.ts). */
  track(sources: MetricsSources): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics?: Metrics;
  }
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The webhook backlog as an operator watches it (`/metrics`, and `/readyz` when
 * READY_MAX_BACKLOG_AGE_S is set); the webhooks module answers it (modules/webhooks/backlog.ts):
 * - `due`: pending deliveries whose next attempt time has come (waiting for a dispatcher);
 * - `held`: deliveries kept back while their endpoint is disabled;
 * - `failing`: pending deliveries with at least one failed attempt in the current schedule;
 * - `oldestDueAgeS`: how long the oldest due delivery has been due (0 when none is).
 */
export interface WebhookBacklog {
  due: number;
  held: number;
  failing: number;
  oldestDueAgeS: number;
}

/** What the operator surfaces (`/metrics`, `/readyz`) read from the app: the database and the webhook backlog. */
export interface OperatorDeps {
  db: Db;
  webhookBacklog(): Promise<WebhookBacklog>;
}

function createMetricsRegistry(deps: OperatorDeps, sources: () => MetricsSources): { registry: Registry; http: { requests: Counter; duration: Histogram } } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const { engine } = dialectOf(deps.db);
  const requests = new Counter({ name: 'paydesk_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const duration = new Histogram({
    name: 'paydesk_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const build = buildInfo();
  new Gauge({
    name: 'paydesk_build_info',
    help: 'The running build: version, commit, database engine and schema (the last migration applied); always 1',
    labelNames: ['version', 'commit', 'engine', 'schema'],
    registers: [registry],
    async collect() {
      let schema = 'unknown';
      try {
        const status = await schemaStatus(deps.db);
        schema = status.applied[status.applied.length - 1] ?? 'none';
      } catch {
        // the database is unreachable: the other families still answer
      }
      this.reset();
      this.set({ version: build.version, commit: build.commit, engine, schema }, 1);
    },
  });
  new Gauge({
    name: 'paydesk_db_pool_connections',
    help: 'Database connections of this instance by state (PostgreSQL pool: total, idle; SQLite: one connection)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = sources().pool;
      this.set({ state: 'total' }, pool ? pool.totalCount : 1);
      this.set({ state: 'idle' }, pool ? pool.idleCount : 0);
    },
  });
  new Gauge({
    name: 'paydesk_db_pool_waiting',
    help: 'Queries waiting for a free pool connection right now (PostgreSQL; 0 on SQLite)',
    registers: [registry],
    collect() {
      this.set(sources().pool?.waitingCount ?? 0);
    },
  });
  new Counter({
    name: 'paydesk_db_transaction_retries_total',
    help: 'PostgreSQL transactions retried after a serialization failure or deadlock',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(transactionRetries.count);
    },
  });
  new Counter({
    name: 'paydesk_db_statements_total',
    help: 'PostgreSQL statements sent by this instance, each one round trip (0 on SQLite)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(roundTrips.statements);
    },
  });
  new Counter({
    name: 'paydesk_db_pool_waits_total',
    help: 'Times a query or transaction found every pooled connection busy and waited for one (PostgreSQL; 0 on SQLite)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(roundTrips.poolWaits);
    },
  });
  new Counter({
    name: 'paydesk_sqlite_commit_reruns_total',
    help: 'SQLite group-commit members run again alone after a failure beside them',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(groupCommitStats.reruns);
    },
  });
  registry.registerMetric(commitBatchSizes);
  const checkpoints = new Counter({ name: 'paydesk_sqlite_checkpoints_total', help: 'WAL checkpoints run by the checkpoint worker', registers: [registry] });
  const checkpointSeconds = new Counter({ name: 'paydesk_sqlite_checkpoint_seconds_total', help: 'Wall time spent in WAL checkpoints by the checkpoint worker', registers: [registry] });
  new Gauge({
    name: 'paydesk_sqlite_checkpoint_last_seconds',
    help: 'Wall time of the last WAL checkpoint',
    registers: [registry],
    async collect() {
      const stats = await sources()
        .checkpointer?.stats()
        .catch(() => null);
      checkpoints.reset();
      checkpointSeconds.reset();
      checkpoints.inc(stats?.count ?? 0);
      checkpointSeconds.inc((stats?.totalMs ?? 0) / 1000);
      this.set((stats?.lastMs ?? 0) / 1000);
    },
  });
  // One query per scrape for both families (prom-client collects them side by side).
  let backlogQuery: { at: number; result: Promise<WebhookBacklog | null> } | null = null;
  const backlog = () => {
    if (!backlogQuery || performance.now() - backlogQuery.at > 1_000) backlogQuery = { at: performance.now(), result: deps.webhookBacklog().catch(() => null) };
    return backlogQuery.result;
  };
  new Gauge({
    name: 'paydesk_webhook_deliveries',
    help: 'Pending webhook deliveries by state: due (waiting for a dispatcher), held (endpoint disabled), failing (retrying after a failure)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (!b) return;
      this.set({ state: 'due' }, b.due);
      this.set({ state: 'held' }, b.held);
      this.set({ state: 'failing' }, b.failing);
    },
  });
  new Gauge({
    name: 'paydesk_webhook_oldest_due_age_seconds',
    help: 'How long the oldest due webhook delivery has been waiting (0 when none is due)',
    registers: [registry],
    async collect() {
      const b = await backlog();
      if (b) this.set(b.oldestDueAgeS);
    },
  });
  new Counter({
    name: 'paydesk_webhook_lease_takeovers_total',
    help: 'Webhook delivery leases taken over from an instance that no longer runs',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(operationCounts.leaseTakeovers);
    },
  });
  registry.registerMetric(sweeperTickSeconds);
  new Counter({
    name: 'paydesk_rate_limit_store_fallbacks_total',
    help: 'Times the shared Redis rate-limit store became unavailable and this instance counted alone',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(operationCounts.rateLimitFallbacks);
    },
  });
  return { registry, http: { requests, duration } };
}

/** Installs metrics as the config says (nothing at all when off). */
export function registerMetrics(app: FastifyInstance, deps: OperatorDeps & { config: Config }): void {
  const { onMainPort, port } = deps.config.metrics;
  if (!onMainPort && port === null) return;
  let sources: MetricsSources = {};
  const { registry, http } = createMetricsRegistry(deps, () => sources);
  let url: string | null = null;
  let side: Server | null = null;
  app.decorate('metrics', {
    registry,
    get url() {
      return url;
    },
    track(more: MetricsSources) {
      sources = { ...sources, ...more };
    },
  });

  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const labels = { method: req.method, route, status: String(reply.statusCode) };
    http.requests.inc(labels);
    http.duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  const answer = async () => ({ type: registry.contentType, body: await registry.metrics() });
  if (onMainPort) {
    app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
      const { type, body } = await answer();
      return reply.header('content-type', type).header('cache-control', 'no-store').send(body);
    });
  }
  if (port !== null) {
    // At ready (the server's start), so the address is known before it takes requests.
    app.addHook('onReady', async () => {
      side = createServer((req, res) => {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
          return;
        }
        answer().then(
          ({ type, body }) => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body),
          (err: unknown) => {
            app.log.error({ err }, 'metrics scrape failed');
            res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
          },
        );
      });
      await new Promise<void>((resolve, reject) => {
        side!.once('error', reject);
        side!.listen(port, '127.0.0.1', () => resolve());
      });
      url = `http://127.0.0.1:${(side.address() as AddressInfo).port}/metrics`;
      app.log.info({ url }, `metrics on ${url}`);
    });
    app.addHook('onClose', async () => {
      if (side) await new Promise<void>((resolve) => side!.close(() => resolve()));
    });
  }
}
