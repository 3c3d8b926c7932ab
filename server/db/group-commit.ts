import type { CompiledQuery, Kysely } from 'kysely';
import { directSqliteOf, type DirectSqlite } from './direct-sqlite';
import { compiler, precompiled } from './precompiled';
import type { Database } from './schema';

/**
 * A precompiled single-statement write (server/db/precompiled.ts) whose calls made outside any
 * transaction, on SQLite, commit together: the calls of one event-loop turn run in one
 * transaction at the turn's end (setImmediate), one WAL commit for all of them instead of one
 * each. A SQLite commit writes every page it changed to the WAL, so statements on neighbouring
 * rows (the attempts started last) share their table and index pages, and the commit's own
 * cost is paid once (issue 16: momo_attempt_create's second write, the provider's answer).
 *
 * Each call still gets its own rows, as if it had run alone; the statements must be
 * independent of each other (a conditional update of one row each, never two on one row in a
 * turn). A statement that fails rolls the group back, and each call then runs alone, so one
 * call's error is never another's. Inside a transaction, on PostgreSQL, or with plugins on the
 * handle, a call runs as `precompiled` runs it. A crash before the group's commit loses what a
 * crash before each single commit would have lost: writes not yet answered.
 */
export function groupCommitted<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }) {
  const alone = precompiled(build);
  const compiledFor = compiler(build);
  const queues = new WeakMap<DirectSqlite, Pending<P, R>[]>();

  const flush = (db: Kysely<Database>, direct: DirectSqlite): void => {
    const group = queues.get(direct) ?? [];
    queues.delete(direct);
    const runAlone = () => {
      for (const call of group) alone(db, call.params).then(call.resolve, call.reject);
    };
    // Another request's transaction is open (it awaits between statements): Kysely's path waits for it.
    if (group.length === 1 || direct.inTransaction()) return runAlone();
    const { query, bind } = compiledFor(db, 'sqlite');
    const stmt = direct.prepare(query.sql);
    const results: R[][] = [];
    try {
      direct.prepare('begin immediate').run();
      for (const call of group) {
        const parameters = bind(call.params);
        results.push(stmt.reader ? (stmt.all(parameters) as R[]) : (stmt.run(parameters), []));
      }
      direct.prepare('commit').run();
    } catch {
      if (direct.inTransaction()) direct.prepare('rollback').run();
      return runAlone();
    }
    group.forEach((call, i) => call.resolve(results[i] ?? []));
  };

  return (db: Kysely<Database>, params: P): Promise<R[]> => {
    const executor = db.getExecutor();
    const direct = directSqliteOf(executor.adapter);
    if (!direct || db.isTransaction || executor.plugins.length > 0) return alone(db, params);
    return new Promise<R[]>((resolve, reject) => {
      let queue = queues.get(direct);
      if (!queue) {
        queue = [];
        queues.set(direct, queue);
        setImmediate(() => flush(db, direct));
      }
      queue.push({ params, resolve, reject });
    });
  };
}

type Pending<P, R> = { params: P; resolve(rows: R[]): void; reject(err: unknown): void };
