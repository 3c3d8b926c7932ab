import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import type { IdGenerator } from '../../lib/ids';
import type { AUDIT_SORTS, AuditAction, AuditList } from '../../../shared/schemas/backoffice';

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

export async function listAudit(
  db: Db,
  filter: { action?: string | undefined; actor?: string | undefined; target_id?: string | undefined; sort?: AuditSort | undefined; dir?: 'asc' | 'desc' | undefined; limit: number; offset: number },
): Promise<AuditList> {
  let q = db.selectFrom('audit_log');
  if (filter.action) q = q.where('action', '=', filter.action);
  if (filter.actor) q = q.where('actor_username', '=', filter.actor);
  if (filter.target_id) q = q.where('target_id', '=', filter.target_id);
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const dir = filter.dir ?? 'desc';
  let ordered = q.selectAll().orderBy(AUDIT_SORT_COLUMNS[filter.sort ?? 'at'], dir);
  // Ties (same action, same staff member) read newest first; the id keeps pages stable.
  if (filter.sort && filter.sort !== 'at') ordered = ordered.orderBy('at', 'desc');
  const rows = await ordered.orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  return {
    total: Number(total.n),
    entries: rows.map((r) => ({
      id: r.id,
      at: r.at,
      actor: { id: r.actor_id, username: r.actor_username, role: r.actor_role },
      action: r.action,
      target_type: r.target_type,
      target_id: r.target_id,
      merchant_id: r.merchant_id,
      before: r.before === null ? null : (JSON.parse(r.before) as Record<string, unknown>),
      after: r.after === null ? null : (JSON.parse(r.after) as Record<string, unknown>),
      ip: r.ip,
    })),
  };
}
