import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommitted } from '../../server/db/group-commit';
import { precompiled } from '../../server/db/precompiled';
import { createTestApp, type TestContext } from '../support/app';

/**
 * Group-committed writes (server/db/group-commit.ts): the calls of one event-loop turn share a
 * transaction on SQLite, yet every call is answered as if it had run alone: its own RETURNING
 * rows, its own error, and another call's failure never undoes it.
 */
const insertBank = precompiled((db, p: { id: string; name: string; code: string; at: string }) =>
  db.insertInto('banks').values({ id: p.id, name: p.name, code: p.code, active: 1, created_at: p.at }),
);
const renameBank = groupCommitted((db, p: { id: string; name: string }) => db.updateTable('banks').set({ name: p.name }).where('id', '=', p.id).returning(['id', 'name']));
const addBank = groupCommitted((db, p: { id: string; name: string; code: string; at: string }) =>
  db.insertInto('banks').values({ id: p.id, name: p.name, code: p.code, active: 1, created_at: p.at }).returning(['id']),
);
const names = (t: TestContext, ids: string[]) =>
  t.database.db.selectFrom('banks').select(['id', 'name']).where('id', 'in', ids).orderBy('id').execute();

describe('group-committed writes', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());
  const at = () => new Date().toISOString();

  it('answers each call of one turn with its own rows, and writes them all', async () => {
    const db = t.database.db;
    for (const i of [1, 2, 3]) await insertBank(db, { id: `bk_gc_${i}`, name: `Old ${i}`, code: `ZZGC${i}`, at: at() });
    const answers = await Promise.all([
      renameBank(db, { id: 'bk_gc_1', name: 'New 1' }),
      renameBank(db, { id: 'bk_gc_missing', name: 'Nobody' }),
      renameBank(db, { id: 'bk_gc_3', name: 'New 3' }),
      renameBank(db, { id: 'bk_gc_2', name: 'New 2' }),
    ]);
    expect(answers).toEqual([[{ id: 'bk_gc_1', name: 'New 1' }], [], [{ id: 'bk_gc_3', name: 'New 3' }], [{ id: 'bk_gc_2', name: 'New 2' }]]);
    expect(await names(t, ['bk_gc_1', 'bk_gc_2', 'bk_gc_3'])).toEqual([
      { id: 'bk_gc_1', name: 'New 1' },
      { id: 'bk_gc_2', name: 'New 2' },
      { id: 'bk_gc_3', name: 'New 3' },
    ]);
  });

  it('a failing call gets its own error; the other calls of its turn are still written', async () => {
    const db = t.database.db;
    await insertBank(db, { id: 'bk_gc_taken', name: 'Taken', code: 'ZZTAKEN', at: at() });
    const answers = await Promise.allSettled([
      addBank(db, { id: 'bk_gc_a', name: 'A', code: 'ZZGCA', at: at() }),
      addBank(db, { id: 'bk_gc_taken', name: 'Duplicate', code: 'ZZGCDUP', at: at() }),
      addBank(db, { id: 'bk_gc_b', name: 'B', code: 'ZZGCB', at: at() }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: [{ id: 'bk_gc_a' }] });
    expect(await names(t, ['bk_gc_a', 'bk_gc_b', 'bk_gc_taken'])).toEqual([
      { id: 'bk_gc_a', name: 'A' },
      { id: 'bk_gc_b', name: 'B' },
      { id: 'bk_gc_taken', name: 'Taken' },
    ]);
  });

  it('inside a transaction, runs in it: a rollback removes the write', async () => {
    const db = t.database.db;
    await insertBank(db, { id: 'bk_gc_trx', name: 'Before', code: 'ZZGCTRX', at: at() });
    await expect(
      db.transaction().execute(async (trx) => {
        expect(await renameBank(trx, { id: 'bk_gc_trx', name: 'Inside' })).toEqual([{ id: 'bk_gc_trx', name: 'Inside' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await names(t, ['bk_gc_trx'])).toEqual([{ id: 'bk_gc_trx', name: 'Before' }]);
  });
});
