import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { afterCommit } from '../../server/db/after-commit';
import { bookkeeping } from '../../server/db/bookkeeping';
import { openDatabase, type Db, type OpenedDatabase } from '../../server/db/database';
import { groupCommitStats } from '../../server/db/sqlite-group-commit';

/**
 * Group commit of whole transactions on SQLite (server/db/sqlite-group-commit.ts): the
 * transactions of one event-loop turn share one COMMIT, yet each is answered as if it had run
 * alone, and only once that COMMIT is done.
 */
type Row = { id: string; n: number };
const rows = (db: Db) => sql<Row>`select id, n from t order by id`.execute(db).then((r) => r.rows);
const insert = (db: Db, id: string, n = 0) => sql`insert into t (id, n) values (${id}, ${n})`.execute(db);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('SQLite group commit', () => {
  let dir: string;
  let opened: OpenedDatabase;
  let db: Db;
  let other: SQLite.Database;
  /** What a second connection (another process, a crash's survivor) sees: committed rows only. */
  const committed = () => (other.prepare('select id from t order by id').all() as Array<{ id: string }>).map((r) => r.id);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-gc-'));
    opened = openDatabase(join(dir, 'db.sqlite'));
    opened.sqlite.exec('create table t (id text primary key, n integer not null); create table p (id text primary key); create table c (id text primary key, p text references p(id) deferrable initially deferred)');
    db = opened.db;
    other = new SQLite(join(dir, 'db.sqlite'), { readonly: true });
    // Kysely initialises its driver on the first query (the server's is its migration); a
    // transaction begun before that runs as a plain one.
    await rows(db);
  });
  afterEach(async () => {
    other.close();
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the transactions of one turn once, each answered with its own result after the COMMIT', async () => {
    const before = { ...groupCommitStats };
    const seen: string[][] = [];
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        db
          .transaction()
          .execute(async (trx) => {
            await insert(trx, id);
            return id.toUpperCase();
          })
          .then((v) => {
            seen.push(committed());
            return v;
          }),
      ),
    );
    expect(answers).toEqual(['A', 'B', 'C']);
    // Every answer came after the rows were visible to another connection.
    expect(seen).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
    expect(groupCommitStats.groups - before.groups).toBe(1);
    expect(groupCommitStats.members - before.members).toBe(3);
  });

  it('a transaction that throws rolls back its own writes only, and its error also waits for the COMMIT', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insert(trx, 'a')),
      db.transaction().execute(async (trx) => {
        await insert(trx, 'b');
        throw new Error('b fails');
      }),
      db.transaction().execute(async (trx) => {
        await insert(trx, 'c');
        // Sees what the earlier member of its group wrote, as it would after its commit.
        return (await rows(trx)).map((r) => r.id);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('b fails'));
    expect((results[2] as PromiseFulfilledResult<string[]>).value).toEqual(['a', 'c']);
    expect(committed()).toEqual(['a', 'c']);
  });

  it('a query outside a transaction waits for the open group instead of reading what is not committed', async () => {
    const order: string[] = [];
    const write = db
      .transaction()
      .execute((trx) => insert(trx, 'a'))
      .then(() => order.push('write answered'));
    const read = rows(db).then((r) => order.push(`read ${r.length}`));
    await Promise.all([write, read]);
    expect(order).toEqual(['write answered', 'read 1']);
  });

  it('runs afterCommit work after the COMMIT, and never for a rolled-back transaction', async () => {
    const log: string[] = [];
    await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await insert(trx, 'a');
        afterCommit(trx, () => log.push(`a: ${committed().join(',')}`));
      }),
      db.transaction().execute(async (trx) => {
        afterCommit(trx, () => log.push('b'));
        throw new Error('b fails');
      }),
    ]);
    expect(log).toEqual(['a: a']);
  });

  it('a transaction awaiting across a turn is set aside: the others commit without it, and it runs again alone', async () => {
    const before = { ...groupCommitStats };
    let runs = 0;
    const quick = db.transaction().execute((trx) => insert(trx, 'a'));
    const slow = db.transaction().execute(async (trx) => {
      runs++;
      await insert(trx, 'slow', runs);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sql`update t set n = n + 100 where id = 'slow'`.execute(trx);
      return runs;
    });
    const quickAnswered = quick.then(() => committed());
    expect(await quickAnswered).toEqual(['a']);
    expect(await slow).toBe(2);
    expect(await rows(db)).toEqual([
      { id: 'a', n: 0 },
      { id: 'slow', n: 102 },
    ]);
    expect(groupCommitStats.evicted - before.evicted).toBe(1);
  });

  it('a transaction awaiting across a turn alone in its group runs once, as its own transaction', async () => {
    let runs = 0;
    const slow = await db.transaction().execute(async (trx) => {
      runs++;
      await insert(trx, 'slow');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sql`update t set n = 7 where id = 'slow'`.execute(trx);
      return runs;
    });
    expect(slow).toBe(1);
    expect(await rows(db)).toEqual([{ id: 'slow', n: 7 }]);
  });

  it('when the COMMIT fails, every transaction of the group runs again alone', async () => {
    const before = { ...groupCommitStats };
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => insert(trx, 'a')),
      // A deferred foreign key is only checked at COMMIT: this one fails the group's.
      db.transaction().execute((trx) => sql`insert into c (id, p) values ('c1', 'nobody')`.execute(trx)),
      db.transaction().execute((trx) => insert(trx, 'b')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(committed()).toEqual(['a', 'b']);
    expect(groupCommitStats.reruns - before.reruns).toBe(3);
  });

  it('transactions started by answers of one group form the next group', async () => {
    await insert(db, 'x', 0);
    const bump = () => db.transaction().execute((trx) => sql`update t set n = n + 1 where id = 'x'`.execute(trx));
    await Promise.all([bump().then(bump), bump().then(bump), turn().then(bump)]);
    expect(await rows(db)).toEqual([{ id: 'x', n: 5 }]);
  });

  describe('bookkeeping (server/db/bookkeeping.ts)', () => {
    /** The `synchronous` level in force: SQLite cannot change it inside a transaction, so it is the one its COMMIT uses. */
    const level = (trx: Db) => sql<{ synchronous: number }>`pragma synchronous`.execute(trx).then((r) => r.rows[0]!.synchronous);
    const FULL = 2;
    const NORMAL = 1;

    it('alone, it commits without a sync; a request’s transaction of the same turn never shares its group', async () => {
      const before = { ...groupCommitStats };
      const seen: string[][] = [];
      const [kept, asked] = await Promise.all([
        bookkeeping(db, async (trx) => {
          await insert(trx, 'k');
          return level(trx);
        }),
        db
          .transaction()
          .execute(async (trx) => {
            await insert(trx, 'r');
            return level(trx);
          })
          .then((v) => {
            seen.push(committed());
            return v;
          }),
      ]);
      expect({ kept, asked }).toEqual({ kept: NORMAL, asked: FULL });
      expect(seen).toEqual([['k', 'r']]);
      expect({ groups: groupCommitStats.groups - before.groups, relaxed: groupCommitStats.relaxed - before.relaxed }).toEqual({ groups: 2, relaxed: 1 });
      // The connection is back to its configured level for everything else.
      expect(opened.sqlite.pragma('synchronous', { simple: true })).toBe(FULL);
      expect(await level(db)).toBe(FULL);
    });

    it('joins a request’s group when one is open, and is then synced with it', async () => {
      const before = { ...groupCommitStats };
      const levels = await Promise.all([
        db.transaction().execute(async (trx) => {
          await insert(trx, 'r');
          return level(trx);
        }),
        bookkeeping(db, async (trx) => {
          await insert(trx, 'k');
          return level(trx);
        }),
      ]);
      expect(levels).toEqual([FULL, FULL]);
      expect({ groups: groupCommitStats.groups - before.groups, relaxed: groupCommitStats.relaxed - before.relaxed }).toEqual({ groups: 1, relaxed: 0 });
      expect(committed()).toEqual(['k', 'r']);
    });

    it('a failed bookkeeping group leaves the connection at its configured level', async () => {
      const failed = bookkeeping(db, async (trx) => {
        await insert(trx, 'k');
        await insert(trx, 'k');
      });
      await expect(failed).rejects.toThrow(/UNIQUE/);
      expect(opened.sqlite.pragma('synchronous', { simple: true })).toBe(FULL);
      expect(committed()).toEqual([]);
    });
  });
});
