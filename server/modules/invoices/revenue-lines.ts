import type { Db } from '../../db/database';
import type { RevenueLinesTable } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { formatPath } from '../../lib/errors';
import {
  RevenueLineInput,
  type RevenueLine,
  type RevenueLineListResponse,
  type RevenueLineSyncResponse,
} from '../../../shared/schemas/merchant';
import type { LineError } from '../../../shared/schemas/common';
import { coerceToSchema } from '../../http/form-body';

export interface SyncInput {
  merchantId: string;
  /** The key's mode: lines are kept per mode, so a test sync never touches live lines. */
  mode: 'test' | 'live';
  integrationId: string | null;
  lines: unknown[];
  deactivateMissing: boolean;
  fromForm: boolean;
}

/** Validates lines one by one: a bad line is reported in `errors` and the rest still sync. */
function checkLines(lines: unknown[], fromForm: boolean) {
  const errors: LineError[] = [];
  const valid: Array<{ index: number; code: string; name: string }> = [];
  const seen = new Set<string>();
  const mentioned = new Set<string>();
  lines.forEach((raw, index) => {
    const candidate = fromForm ? coerceToSchema(RevenueLineInput, raw) : raw;
    const code = (candidate as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.trim()) mentioned.add(code.trim());
    const parsed = RevenueLineInput.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = formatPath(['lines', index, ...(issue?.path ?? [])]);
      errors.push({ index, code: 'INVALID_ARGUMENT', field, message: `${field}: ${issue?.message ?? 'is invalid'}` });
      return;
    }
    if (seen.has(parsed.data.code)) {
      const field = `lines[${index}].code`;
      errors.push({ index, code: 'DUPLICATE_LINE', field, message: `${field}: code ${parsed.data.code} appears earlier in this request` });
      return;
    }
    seen.add(parsed.data.code);
    valid.push({ index, ...parsed.data });
  });
  return { errors, valid, mentioned };
}

export async function syncRevenueLines(
  { db, clock, ids }: Pick<AppDeps, 'db' | 'clock' | 'ids'>,
  input: SyncInput,
): Promise<RevenueLineSyncResponse> {
  const { errors, valid, mentioned } = checkLines(input.lines, input.fromForm);
  const now = clock.now().toISOString();
  const counts = { created: 0, updated: 0, reactivated: 0, deactivated: 0, unchanged: 0 };

  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('revenue_lines').selectAll().where('merchant_id', '=', input.merchantId).where('mode', '=', input.mode).execute();
    const byCode = new Map(existing.map((r) => [r.code, r]));
    for (const line of valid) {
      const row = byCode.get(line.code);
      if (!row) {
        await trx
          .insertInto('revenue_lines')
          .values({
            id: ids.uuid(),
            merchant_id: input.merchantId,
            mode: input.mode,
            code: line.code,
            name: line.name,
            active: 1,
            source: 'sync',
            last_synced_at: now,
            created_at: now,
            updated_at: now,
          })
          .execute();
        counts.created++;
        continue;
      }
      const patch: Partial<RevenueLinesTable> = { last_synced_at: now };
      if (!row.active) {
        Object.assign(patch, { active: 1, name: line.name, updated_at: now, source: 'sync' });
        counts.reactivated++;
      } else if (row.name !== line.name) {
        Object.assign(patch, { name: line.name, updated_at: now, source: 'sync' });
        counts.updated++;
      } else {
        counts.unchanged++;
      }
      await trx.updateTable('revenue_lines').set(patch).where('id', '=', row.id).execute();
    }
    if (input.deactivateMissing) {
      for (const row of existing) {
        if (row.active && !mentioned.has(row.code)) {
          await trx.updateTable('revenue_lines').set({ active: 0, updated_at: now, last_synced_at: now }).where('id', '=', row.id).execute();
          counts.deactivated++;
        }
      }
    }
    await trx
      .insertInto('revenue_line_syncs')
      .values({
        id: ids.uuid(),
        merchant_id: input.merchantId,
        integration_id: input.integrationId,
        ...counts,
        total: input.lines.length,
        error_count: errors.length,
        created_at: now,
      })
      .execute();
  });

  return { object: 'revenue_lines.sync', ...counts, total: input.lines.length, errors };
}

const toRevenueLine = (r: RevenueLinesTable): RevenueLine => ({
  id: r.id,
  merchant_id: r.merchant_id,
  code: r.code,
  name: r.name,
  active: r.active === 1,
  source: r.source,
  last_synced_at: r.last_synced_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export async function listRevenueLines(
  db: Db,
  owner: { merchantId: string; mode: 'test' | 'live' },
  includeInactive: boolean,
): Promise<RevenueLineListResponse> {
  const rows = await db.selectFrom('revenue_lines').selectAll().where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).orderBy('code').execute();
  const active = rows.filter((r) => r.active === 1).length;
  return {
    object: 'list',
    lines: rows.filter((r) => includeInactive || r.active === 1).map(toRevenueLine),
    counts: { total: rows.length, active, inactive: rows.length - active },
  };
}
