import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { Db } from '../../db/database';
import { dialectOf } from '../../db/dialect';
import type { Retention } from '../../config';
import type { Clock } from '../../lib/clock';
import type { IdGenerator } from '../../lib/ids';
import { purgeExpiredIdempotencyKeys } from '../idempotency';

/**
 * Retention (docs/operations.md): what `npm run admin -- db:prune` removes, rule by
 * rule, `batch` rows per statement (each its own short transaction, an event-loop turn between),
 * every statement a range on an index of the row's time. `dryRun` counts instead.
 *
 * - idempotency keys past their expiry (IDEMPOTENCY_RETENTION_S after use);
 * - webhook attempt log rows older than WEBHOOK_ATTEMPT_LOG_RETENTION_DAYS whose delivery is over;
 * - the body of events older than WEBHOOK_BODY_RETENTION_DAYS that every endpoint received: the
 *   payload becomes '' (the event row, its deliveries and the session stay; such an event can no
 *   longer be redelivered, which redelivery says);
 * - session history rows older than SESSION_HISTORY_RETENTION_DAYS;
 * - audit entries older than AUDIT_RETENTION_DAYS (at least 365): first a row in
 *   audit_prune_marks records the cutoff (the database refuses one younger than 365 days), and
 *   only then does the audit table's DELETE trigger let rows before it go (migration 0014).
 */
export interface PruneRule {
  rule: 'idempotency_keys' | 'webhook_attempt_logs' | 'webhook_bodies' | 'session_history' | 'audit_log';
  cutoff: string;
  rows: number;
}

const DAY_MS = 86_400_000;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Each batch is one transaction (SERIALIZABLE with retries on PostgreSQL, BEGIN IMMEDIATE on
 * SQLite: server/db): the body rule's NOT EXISTS on pending deliveries and its UPDATE cannot
 * interleave with a redelivery queuing one (redelivery.ts reads the body in its own transaction).
 */
async function inBatches(db: Db, step: (q: Transaction<Database>) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.transaction().execute(step);
    total += n;
    if (n < batch) return total;
    await turn();
  }
}

export async function prune(db: Db, deps: { clock: Clock; ids: IdGenerator; retention: Retention }, opts: { dryRun?: boolean; batch?: number } = {}): Promise<PruneRule[]> {
  const batch = opts.batch ?? 1000;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
  const r = deps.retention;
  const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) => Number((await q.executeTakeFirstOrThrow()).n);
  const out: PruneRule[] = [];

  // Idempotency keys.
  out.push({
    rule: 'idempotency_keys',
    cutoff: nowIso,
    rows: opts.dryRun
      ? await count(db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n')).where('expires_at', '<=', nowIso))
      : await purgeExpiredIdempotencyKeys(db, { now: () => now }, batch),
  });

  // Webhook attempt logs of finished deliveries.
  const logCutoff = before(r.webhookAttemptLogDays);
  const dueLogs = db
    .selectFrom('webhook_delivery_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .where('a.started_at', '<', logCutoff)
    .where('d.status', '<>', 'pending');
  out.push({
    rule: 'webhook_attempt_logs',
    cutoff: logCutoff,
    rows: opts.dryRun
      ? await count(dueLogs.select((eb) => eb.fn.countAll().as('n')))
      : await inBatches(db, async (q) => {
          const res = await q.deleteFrom('webhook_delivery_attempts').where('seq', 'in', dueLogs.select('a.seq').limit(batch)).executeTakeFirst();
          return Number(res.numDeletedRows);
        }, batch),
  });

  // Bodies of events every endpoint received.
  const bodyCutoff = before(r.webhookBodyDays);
  const dueBodies = db
    .selectFrom('events as e')
    .where('e.created_at', '<', bodyCutoff)
    .where('e.payload', '<>', '')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id').where('d.status', '<>', 'succeeded'))));
  out.push({
    rule: 'webhook_bodies',
    cutoff: bodyCutoff,
    rows: opts.dryRun
      ? await count(dueBodies.select((eb) => eb.fn.countAll().as('n')))
      : await inBatches(db, async (q) => {
          const res = await q.updateTable('events').set({ payload: '' }).where('id', 'in', dueBodies.select('e.id').limit(batch)).executeTakeFirst();
          return Number(res.numUpdatedRows);
        }, batch),
  });

  // Session history.
  const historyCutoff = before(r.sessionHistoryDays);
  out.push({
    rule: 'session_history',
    cutoff: historyCutoff,
    rows: opts.dryRun
      ? await count(db.selectFrom('session_history').select((eb) => eb.fn.countAll().as('n')).where('at', '<', historyCutoff))
      : await inBatches(db, async (q) => {
          const res = await q.deleteFrom('session_history').where('id', 'in', db.selectFrom('session_history as h').select('h.id').where('h.at', '<', historyCutoff).limit(batch)).executeTakeFirst();
          return Number(res.numDeletedRows);
        }, batch),
  });

  // Audit: through the recorded cutoff only.
  const auditCutoff = before(r.auditDays);
  const dueAudit = await count(db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).where('at', '<', auditCutoff));
  let auditRows = dueAudit;
  if (!opts.dryRun && dueAudit > 0) {
    await db
      .insertInto('audit_prune_marks')
      .values({ id: deps.ids.uuid(), cutoff: auditCutoff, recorded_at: nowIso, reason: `db:prune: AUDIT_RETENTION_DAYS=${r.auditDays}, ${dueAudit} entries` })
      .execute();
    auditRows = await inBatches(db, async (q) => {
      const res = await q.deleteFrom('audit_log').where('id', 'in', db.selectFrom('audit_log as l').select('l.id').where('l.at', '<', auditCutoff).limit(batch)).executeTakeFirst();
      return Number(res.numDeletedRows);
    }, batch);
  }
  out.push({ rule: 'audit_log', cutoff: auditCutoff, rows: auditRows });
  return out;
}

export interface TableStat {
  table: string;
  rows: number;
  /** Table and index bytes (SQLite: dbstat; PostgreSQL: pg_total_relation_size). */
  bytes: number | null;
}

const TABLES = [
  'checkout_sessions', 'session_history', 'payment_attempts', 'cash_slips', 'cash_deposits', 'events', 'webhook_deliveries', 'webhook_delivery_attempts',
  'audit_log', 'audit_prune_marks', 'idempotency_keys', 'invoice_lines', 'invoice_summaries', 'invoice_summary_deltas', 'finance_day_totals', 'exception_reviews', 'cash_ups', 'revenue_lines', 'revenue_line_syncs', 'staff_sessions', 'staff_login_failures', 'server_secrets',
  'merchants', 'integrations', 'api_keys', 'webhook_endpoints', 'staff_users', 'setup_links',
] as const;

/** Row counts and sizes of the tables, largest first, and the database's total size. */
export async function dbStats(db: Db): Promise<{ engine: 'sqlite' | 'postgres'; total_bytes: number; tables: TableStat[] }> {
  const dialect = dialectOf(db);
  const tables: TableStat[] = [];
  const { tables: sizes, total } = await dialect.sizes(db);
  for (const t of TABLES) {
    const n = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql.table(t)}`.execute(db);
    tables.push({ table: t, rows: Number(n.rows[0]?.n ?? 0), bytes: sizes.get(t) ?? null });
  }
  tables.sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0) || b.rows - a.rows);
  return { engine: dialect.engine, total_bytes: total, tables };
}
