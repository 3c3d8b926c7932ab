import type { CompiledQuery, Kysely } from 'kysely';
import { directSqliteOf } from './direct-sqlite';
import { compiler, precompiled } from './precompiled';
import type { Database } from './schema';

/**
 * A precompiled single-statement write (server/db/precompiled.ts) whose calls made outside any
 * transaction, on SQLite, join the event-loop turn's group commit
 * (server/db/sqlite-group-commit.ts) without a transaction of their own: each runs when the
 * connection is free, inside the group's transaction, and is answered after its COMMIT. A
 * SQLite commit writes every page it changed to the WAL, so statements on neighbouring rows
 * (the attempts started last) share their table and index pages, and the commit's own cost is
 * paid once (momo_attempt_create's second write, the provider's answer).
 *
 * Each call still gets its own rows, as if it had run alone: a statement that fails is undone
 * by SQLite on its own (statement-level rollback) and only its call gets the error; if the
 * COMMIT fails, each call runs again alone. Inside a transaction, on PostgreSQL, or with
 * plugins on the handle, a call runs as `precompiled` runs it. A crash before the group's
 * commit loses what a crash before each single commit would have lost: writes not yet answered.
 */
export function groupCommitted<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }) {
  const alone = precompiled(build);
  const compiledFor = compiler(build);
  return (db: Kysely<Database>, params: P): Promise<R[]> => {
    const executor = db.getExecutor();
    const direct = directSqliteOf(executor.adapter);
    if (!direct || db.isTransaction || executor.plugins.length > 0) return alone(db, params);
    const { query, bind } = compiledFor(db, 'sqlite');
    return direct.groupWrite(
      () => {
        const stmt = direct.prepare(query.sql);
        const parameters = bind(params);
        return stmt.reader ? (stmt.all(parameters) as R[]) : (stmt.run(parameters), []);
      },
      () => alone(db, params),
    );
  };
}
