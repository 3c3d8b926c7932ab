import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { AuditLogTable, Database } from '../../db/schema';
import { CSV_TIME_ZONE, csvText } from '../../lib/csv';
import { invalid } from '../../lib/errors';
import { boundedTotal } from '../../lib/list-total';
import { afterCursor, decodeCursor, pageOf } from '../../http/paging';
import { auditActionLabel } from '../../../shared/labels';
import { targetNames } from './audit-targets';
import { iso } from '../../lib/iso-param';
import type { Clock } from '../../lib/clock';
import type { IdGenerator } from '../../lib/ids';
import type { AUDIT_SORTS, AuditAction, AuditEntry, AuditList } from '../../../shared/schemas/backoffice';

type Q = Kysely<Database> | Transaction<Database>;

export interface AuditDeps {
  clock: Clock;
  ids: IdGenerator;
}

/** Who acted, from where: the signed-in staff member, or a would-be one (failed sign-in). */
export interface Actor {
  id: string | null;
  username: string;
  role: string;
  ip: string | null;
}

/** The signed-in staff member as the audit trail records them (structural: no import of staff-auth, which records audit rows). */
export const actorOf = (staff: Pick<Actor, 'id' | 'username' | 'role'>, ip: string | null): Actor => ({ id: staff.id, username: staff.username, role: staff.role, ip });

export interface AuditRecord {
  action: AuditAction;
  targetType: string;
  targetId: string | null;
  merchantId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/**
 * Appends one entry to the audit trail. Called inside the transaction of the action it
 * records, so an action and its entry are committed together or not at all. The table
 * refuses UPDATE and DELETE (triggers in migration 0005): entries cannot be edited.
 */
export async function recordAudit(q: Q, deps: AuditDeps, actor: Actor, rec: AuditRecord): Promise<void> {
  await q
    .insertInto('audit_log')
    .values({
      id: deps.ids.uuid(),
      at: deps.clock.now().toISOString(),
      actor_id: actor.id,
      actor_username: actor.username,
      actor_role: actor.role,
      action: rec.action,
      target_type: rec.targetType,
      target_id: rec.targetId,
      merchant_id: rec.merchantId ?? null,
      before: rec.before === undefined || rec.before === null ? null : JSON.stringify(rec.before),
      after: rec.after === undefined || rec.after === null ? null : JSON.stringify(rec.after),
      ip: actor.ip,
    })
    .execute();
}

type AuditSort = (typeof AUDIT_SORTS)[number];
/** Sort keys of GET /audit → columns (a fixed map: no column name ever comes from the request). */
const AUDIT_SORT_COLUMNS = { at: 'at', action: 'action', actor: 'actor_username', target_type: 'target_type' } as const satisfies Record<AuditSort, string>;

export interface AuditFilter {
  action?: string | undefined;
  actor?: string | undefined;
  target_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

function filtered(db: Db, filter: AuditFilter) {
  const from = iso('from', filter.from);
  const to = iso('to', filter.to);
  if (from && to && from >= to) throw invalid('to', 'must be after from');
  let q = db.selectFrom('audit_log');
  if (filter.action) q = q.where('action', '=', filter.action);
  if (filter.actor) q = q.where('actor_username', '=', filter.actor);
  if (filter.target_id) q = q.where('target_id', '=', filter.target_id);
  if (from) q = q.where('at', '>=', from);
  if (to) q = q.where('at', '<', to);
  return q;
}

/**
 * GET /audit. `total` counts at most `cap` entries (server/lib/list-total.ts). In `at` order (the
 * default) pages go by cursor: the next page starts after the last entry's (at, id), an index walk
 * on `audit_log_at` whatever the depth; `offset` still works and reads every row it skips. Other
 * sorts page by offset only.
 */
export async function listAudit(
  db: Db,
  filter: AuditFilter & { sort?: AuditSort | undefined; dir?: 'asc' | 'desc' | undefined; limit: number; offset: number; cursor?: string | undefined },
  cap: number,
): Promise<AuditList> {
  let q = filtered(db, filter);
  const total = await boundedTotal(db, q, cap);
  const dir = filter.dir ?? 'desc';
  const sort = filter.sort ?? 'at';
  if (sort !== 'at') {
    if (filter.cursor) throw invalid('cursor', `pages sort=at only; page sort=${sort} with offset`);
    // Ties (same action, same staff member) read newest first; the id keeps pages stable.
    const rows = await q.selectAll().orderBy(AUDIT_SORT_COLUMNS[sort], dir).orderBy('at', 'desc').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
    return { ...total, entries: await toEntries(db, rows), next_cursor: null };
  }
  if (filter.cursor) {
    if (filter.offset > 0) throw invalid('cursor', 'cannot be combined with offset');
    const c = decodeCursor(filter.cursor, 'at', dir);
    q = q.where((eb) => afterCursor(eb, 'at', 'id', dir, c));
  }
  // Ties (same millisecond) follow the id in the same direction: one walk of the index on `at`.
  const rows = await q.selectAll().orderBy('at', dir).orderBy('id', dir).limit(filter.limit + 1).offset(filter.offset).execute();
  const { page, next_cursor } = pageOf(rows, filter.limit, 'at', dir, (r) => r.at);
  return { ...total, entries: await toEntries(db, page), next_cursor };
}

async function toEntries(db: Db, rows: Array<Selectable<AuditLogTable>>): Promise<AuditEntry[]> {
  const names = await targetNames(db, rows);
  return rows.map((r) => ({
      id: r.id,
      at: r.at,
      actor: { id: r.actor_id, username: r.actor_username, role: r.actor_role },
      action: r.action,
      target_type: r.target_type,
      target_id: r.target_id,
      target_name: r.target_id ? (names.get(`${r.target_type}:${r.target_id}`) ?? null) : null,
      merchant_id: r.merchant_id,
      before: r.before === null ? null : (JSON.parse(r.before) as Record<string, unknown>),
      after: r.after === null ? null : (JSON.parse(r.after) as Record<string, unknown>),
      ip: r.ip,
  }));
}

/** Most entries one export holds; a wider range is refused so the file stays usable. */
const AUDIT_CSV_MAX_ROWS = 20_000;

/**
 * The filtered trail as CSV, oldest first: times in UTC (ISO 8601, as stored: a spreadsheet
 * converts them), the action in words beside its code, the target by name.
 */
export async function auditCsv(db: Db, filter: AuditFilter): Promise<string> {
  const q = filtered(db, filter);
  const count = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(count.n) > AUDIT_CSV_MAX_ROWS) throw invalid('from', `the export may hold at most ${AUDIT_CSV_MAX_ROWS} entries; choose a shorter date range`);
  const entries = await toEntries(db, await q.selectAll().orderBy('at', 'asc').orderBy('id').execute());
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return csvText(
    ['at', 'staff', 'role', 'ip', 'action', 'action_code', 'target', 'target_type', 'target_id', 'before', 'after', 'time_zone'],
    entries.map((e) => [e.at, e.actor.username, e.actor.role, e.ip, auditActionLabel(e.action), e.action, e.target_name, e.target_type, e.target_id, json(e.before), json(e.after), CSV_TIME_ZONE]),
  );
}
