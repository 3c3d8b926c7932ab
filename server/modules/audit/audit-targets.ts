import type { Db } from '../../db/database';
import { formatMoney } from '../../../shared/money';

/**
 * The audit trail names each target the way staff know it (the merchant, the key's name, the
 * endpoint's URL, the slip reference and amount), not by its UUID. Looked up in one query per
 * target type present on the page; a target that no longer exists keeps its id only.
 */
export async function targetNames(db: Db, entries: Array<{ target_type: string; target_id: string | null }>): Promise<Map<string, string>> {
  const ids = (type: string) => [...new Set(entries.filter((e) => e.target_type === type && e.target_id).map((e) => e.target_id!))];
  const names = new Map<string, string>();
  const put = (type: string, id: string, name: string) => names.set(`${type}:${id}`, name);
  const lookups: Array<Promise<void>> = [];
  const each = <T>(type: string, run: (list: string[]) => Promise<T[]>, name: (row: T) => [string, string]) => {
    const list = ids(type);
    if (list.length) lookups.push(run(list).then((rows) => rows.forEach((r) => put(type, ...name(r)))));
  };
  each(
    'api_key',
    (l) => db.selectFrom('api_keys as k').innerJoin('integrations as i', 'i.id', 'k.integration_id').innerJoin('merchants as m', 'm.id', 'i.merchant_id').select(['k.id', 'k.name', 'k.prefix', 'm.name as merchant']).where('k.id', 'in', l).execute(),
    (r) => [r.id, `${r.name ? `“${r.name}” ` : ''}${r.prefix}… (${r.merchant})`],
  );
  each(
    'integration',
    (l) => db.selectFrom('integrations as i').innerJoin('merchants as m', 'm.id', 'i.merchant_id').select(['i.id', 'i.mode', 'm.name']).where('i.id', 'in', l).execute(),
    (r) => [r.id, `${r.name} (${r.mode} integration)`],
  );
  each(
    'webhook_endpoint',
    (l) => db.selectFrom('webhook_endpoints as e').innerJoin('integrations as i', 'i.id', 'e.integration_id').innerJoin('merchants as m', 'm.id', 'i.merchant_id').select(['e.id', 'e.url', 'm.name']).where('e.id', 'in', l).execute(),
    (r) => [r.id, `${r.url} (${r.name})`],
  );
  each(
    'cash_up',
    (l) => db.selectFrom('cash_ups as c').innerJoin('staff_users as u', 'u.id', 'c.teller_id').select(['c.id', 'c.business_day', 'c.currency', 'u.username']).where('c.id', 'in', l).execute(),
    (r) => [r.id, `cash-up of ${r.username}, ${r.business_day} (${r.currency})`],
  );
  each('staff_user', (l) => db.selectFrom('staff_users').select(['id', 'username', 'role']).where('id', 'in', l).execute(), (r) => [r.id, `${r.username} (${r.role})`]);
  each('bank', (l) => db.selectFrom('banks').select(['id', 'name']).where('id', 'in', l).execute(), (r) => [r.id, r.name]);
  each(
    'branch',
    (l) => db.selectFrom('branches as br').innerJoin('banks as b', 'b.id', 'br.bank_id').select(['br.id', 'br.name', 'b.name as bank']).where('br.id', 'in', l).execute(),
    (r) => [r.id, `${r.bank}, ${r.name}`],
  );
  each('revenue_line', (l) => db.selectFrom('revenue_lines').select(['id', 'code', 'name']).where('id', 'in', l).execute(), (r) => [r.id, `${r.code} ${r.name}`]);
  each(
    'cash_deposit',
    (l) => db.selectFrom('cash_deposits as d').innerJoin('cash_slips as s', 's.id', 'd.slip_id').select(['d.id', 'd.amount_minor', 'd.currency', 's.reference']).where('d.id', 'in', l).execute(),
    (r) => [r.id, `Deposit of ${formatMoney(r.amount_minor, r.currency)} on slip ${r.reference}`],
  );
  each(
    'payment_attempt',
    (l) => db.selectFrom('payment_attempts').select(['id', 'rail', 'payment_reference', 'provider_reference']).where('id', 'in', l).execute(),
    (r) => [r.id, `Bank transfer ${r.payment_reference ?? r.provider_reference}`],
  );
  each(
    'event',
    (l) => db.selectFrom('events').select(['id', 'type']).where('id', 'in', l).execute(),
    (r) => [r.id, `Event ${r.type}`],
  );
  await Promise.all(lookups);
  return names;
}
