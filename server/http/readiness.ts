import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database';
import { schemaStatus, staleReasonOf } from '../db/schema-version';
import { AppError } from '../lib/errors';
import type { OperatorDeps } from './metrics';
import { buildInfo } from '../version';

/**
 * `GET /readyz`, for a load balancer (docs/deployment.md): 200 only while this instance can serve:
 * - it is not draining (SIGTERM/SIGINT turn it 503 before the server stops taking requests);
 * - the database answers `select 1` within PING_TIMEOUT_MS;
 * - with READY_MAX_BACKLOG_AGE_S set: no webhook delivery has been due longer than that (a
 *   dispatcher stuck or far behind; one aggregate over the pending deliveries);
 * - the schema has every migration this build knows. On PostgreSQL `serve` does not migrate
 *   (a rolling deploy runs `npm run admin -- db:migrate` once), so an instance started before
 *   the migration serves but says 503 until it has run: re-read every SCHEMA_RECHECK_MS while
 *   behind, never again once current. A schema that becomes *newer* while running (the next
 *   version migrated during a rolling deploy) keeps it ready: migrations are additive, and
 *   taking every old instance out at once would leave the balancer with none.
 * `/healthz` stays "the process is up" and never touches the database.
 */
const PING_TIMEOUT_MS = 2_000;
export const SCHEMA_RECHECK_MS = 2_000;

interface Readiness {
  /** From now on /readyz answers 503 (shutdown). */
  drain(): void;
  readonly draining: boolean;
  /** Null when ready, else why not (one line). */
  check(): Promise<string | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness;
  }
}

/**
 * /readyz is unauthenticated: its answer names only which check failed. The detail (a driver
 * error naming hosts, users or addresses; the migration names) goes to the log, once per
 * distinct detail, not to the caller.
 */
function createReadiness(db: Db, log?: { warn(obj: object, msg: string): void }, backlog?: { read: OperatorDeps['webhookBacklog']; maxAgeS: number | null }): Readiness {
  let lastLogged: string | null = null;
  const logOnce = (detail: string, msg: string) => {
    if (detail === lastLogged) return;
    lastLogged = detail;
    log?.warn({ detail }, msg);
  };
  let draining = false;
  let schemaCurrent = false;
  let staleReason: string | null = null;
  let checkedAt = -Infinity;

  async function schema(): Promise<string | null> {
    if (schemaCurrent) return null;
    if (performance.now() - checkedAt >= SCHEMA_RECHECK_MS) {
      checkedAt = performance.now();
      staleReason = staleReasonOf(await schemaStatus(db));
      schemaCurrent = staleReason === null;
    }
    if (staleReason === null) return null;
    logOnce(staleReason, 'not ready: database schema behind this build');
    return 'the database schema is behind this build: run `npm run admin -- db:migrate`';
  }

  return {
    drain: () => {
      draining = true;
    },
    get draining() {
      return draining;
    },
    async check() {
      if (draining) return 'the instance is draining (shutting down)';
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          sql`select 1`.execute(db),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS))),
        ]);
        const behind = await schema();
        if (behind || !backlog?.maxAgeS) return behind;
        const { oldestDueAgeS } = await backlog.read();
        if (oldestDueAgeS <= backlog.maxAgeS) return null;
        logOnce(`backlog ${Math.floor(oldestDueAgeS / 60)}`, 'not ready: webhook deliveries wait longer than READY_MAX_BACKLOG_AGE_S');
        return `a webhook delivery has been due for ${oldestDueAgeS} s (READY_MAX_BACKLOG_AGE_S is ${backlog.maxAgeS})`;
      } catch (err) {
        logOnce((err as Error).message.split('\n')[0] ?? '', 'not ready: the database is unreachable');
        return 'the database is unreachable';
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Registers /healthz (process up, and which build: version and commit, for a rolling upgrade) and
 * /readyz (can serve); neither is an API operation, so both stay out of the OpenAPI document.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: OperatorDeps & { config: { readyMaxBacklogAgeS: number | null } }): void {
  const readiness = createReadiness(deps.db, app.log, { read: deps.webhookBacklog, maxAgeS: deps.config.readyMaxBacklogAgeS });
  app.decorate('readiness', readiness);
  const { version, commit } = buildInfo();
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', version, commit }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const reason = await readiness.check();
    if (reason) {
      reply.header('cache-control', 'no-store');
      throw new AppError('SERVICE_UNAVAILABLE', `not ready: ${reason}`);
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ready' });
  });
}
