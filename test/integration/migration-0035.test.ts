import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { throttleName, throttleSecret } from '../../server/modules/auth/username';

// 0035 rewrites the sign-in throttle's rows: the username as typed becomes a keyed hash of its normalised form.
describe('migration 0035 on a database with sign-in failures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-m0035-'));
  const d = openDatabase(join(dir, 'paydesk.sqlite'));
  afterAll(async () => {
    await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every row and its time, with no username text left, under the key sign-in now computes', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0035'));
    const { error } = await new Migrator({ db: d.db, provider: { getMigrations: async () => before } }).migrateToLatest();
    expect(error).toBeUndefined();
    const at = new Date().toISOString();
    await d.db
      .insertInto('staff_login_failures')
      .values([
        { id: 'f1', throttle_key: 'user:mysecretpassw0rd!!|10.0.0.1', at },
        { id: 'f2', throttle_key: 'user:pfina|10.0.0.2', at },
        { id: 'f3', throttle_key: 'ip:10.0.0.1', at },
        { id: 'f4', throttle_key: 'pwchange:u1', at },
      ])
      .execute();

    await migrate(d.db);

    const rows = await d.db.selectFrom('staff_login_failures').selectAll().orderBy('id').execute();
    expect(JSON.stringify(rows)).not.toContain('mysecretpassw0rd');
    const secret = await throttleSecret(d.db);
    expect(rows).toEqual([
      { id: 'f1', throttle_key: `user:${throttleName(secret, 'mysecretpassw0rd!!')}|10.0.0.1`, at },
      { id: 'f2', throttle_key: `user:${throttleName(secret, 'ＰＦＩＮＡ')}|10.0.0.2`, at },
      { id: 'f3', throttle_key: 'ip:10.0.0.1', at },
      { id: 'f4', throttle_key: 'pwchange:u1', at },
    ]);
  });
});
