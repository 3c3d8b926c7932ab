import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompiled } from '../../server/db/precompiled';
import { createTestApp, type TestContext } from '../support/app';

/**
 * The compiled hot-path statements (server/db/precompiled.ts) on the app's own handle: on SQLite
 * they run on the connection directly, bypassing Kysely's executor and its connection mutex. They
 * must still read what a Kysely query would: inside a transaction its own uncommitted rows; from
 * outside, never another request's uncommitted (or rolled back) rows.
 */
const bankById = precompiled((db, p: { id: string }) => db.selectFrom('banks').select(['id', 'name', 'active']).where('id', '=', p.id));
const activeBankByCode = precompiled((db, p: { code: string }) => db.selectFrom('banks').select(['id']).where('code', '=', p.code).where('active', '=', 1));
const insertBank = precompiled((db, p: { id: string; name: string; code: string; at: string }) =>
  db.insertInto('banks').values({ id: p.id, name: p.name, code: p.code, active: 1, created_at: p.at }),
);

describe('precompiled statements', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const at = () => new Date().toISOString();

  it('writes and reads outside a transaction, with the constants the builder wrote kept', async () => {
    const db = t.database.db;
    expect(await insertBank(db, { id: 'bk_pc_1', name: 'One', code: 'PC1', at: at() })).toEqual([]);
    expect(await bankById(db, { id: 'bk_pc_1' })).toEqual([{ id: 'bk_pc_1', name: 'One', active: 1 }]);
    expect(await activeBankByCode(db, { code: 'PC1' })).toEqual([{ id: 'bk_pc_1' }]);
    await db.updateTable('banks').set({ active: 0 }).where('id', '=', 'bk_pc_1').execute();
    expect(await activeBankByCode(db, { code: 'PC1' })).toEqual([]);
    expect(await bankById(db, { id: 'bk_missing' })).toEqual([]);
  });

  it('inside a transaction, sees and writes the transaction’s own rows, which a rollback removes', async () => {
    const db = t.database.db;
    await expect(
      db.transaction().execute(async (trx) => {
        await insertBank(trx, { id: 'bk_pc_2', name: 'Two', code: 'PC2', at: at() });
        expect(await bankById(trx, { id: 'bk_pc_2' })).toEqual([{ id: 'bk_pc_2', name: 'Two', active: 1 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await bankById(db, { id: 'bk_pc_2' })).toEqual([]);
  });

  it('from outside, never sees another transaction’s uncommitted rows, nor joins it', async () => {
    const db = t.database.db;
    let inserted!: () => void;
    const insertedP = new Promise<void>((r) => (inserted = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const other = db.transaction().execute(async (trx) => {
      await insertBank(trx, { id: 'bk_pc_3', name: 'Three', code: 'PC3', at: at() });
      inserted();
      await held; // another request's transaction, awaiting between its statements
      throw new Error('roll back');
    });
    await insertedP;
    // A read and a write from outside while it is open: on SQLite they wait for it to end.
    const read = bankById(db, { id: 'bk_pc_3' });
    const write = insertBank(db, { id: 'bk_pc_4', name: 'Four', code: 'PC4', at: at() });
    release();
    await expect(other).rejects.toThrow('roll back');
    expect(await read).toEqual([]);
    await write;
    // The outside write was not part of the rolled-back transaction.
    expect(await bankById(db, { id: 'bk_pc_4' })).toEqual([{ id: 'bk_pc_4', name: 'Four', active: 1 }]);
    expect(await bankById(db, { id: 'bk_pc_3' })).toEqual([]);
  });
});
