import { setImmediate as nextTurn } from 'node:timers';
import type SQLite from 'better-sqlite3';
import { SelectQueryNode, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { commitBatchSizes } from '../observe';

/**
 * Group commit of whole transactions on SQLite. A SQLite commit writes every page
 * the transaction changed to the WAL (~15 µs of CPU a page, 16–21 pages for a session or an
 * attempt create), so under load most of a write request's cost was its own commit. Here the
 * transactions of one event-loop turn share one:
 *
 * - the first `db.transaction()` of a turn opens the outer transaction (BEGIN IMMEDIATE) and
 *   schedules its COMMIT at setImmediate; it and every later one of the turn run in a SAVEPOINT
 *   inside it, one after the other (the connection is still held by one at a time). Kysely on
 *   better-sqlite3 is synchronous behind its promises, so a transaction that awaits only
 *   SQLite ends within the microtasks of the turn that started it;
 * - a transaction whose callback throws rolls back to its savepoint only: the others keep theirs;
 * - each transaction's result (or error) is handed to its caller only after the outer COMMIT, so
 *   nothing is answered that a crash could still lose (the kill -9 drill), and its afterCommit
 *   work (server/db/after-commit.ts) runs after that COMMIT too. The COMMIT returns once the WAL
 *   is synced (`synchronous = FULL`, database.ts), so a power cut cannot lose it either: one
 *   fdatasync per group, however many requests it answers (test/integration/durability-strace.test.ts);
 * - when the COMMIT fails (or SQLite rolled the whole transaction back, e.g. disk full), every
 *   member runs again alone, as a transaction of its own (a callback may run more than once, as on
 *   PostgreSQL: docs/architecture.md);
 * - a member still running when the COMMIT is due awaits something other than SQLite (a timer,
 *   the network): it is not allowed to hold the others' answers. Alone in the group, the group
 *   simply becomes its transaction (committed when it ends, as before group commit); with others,
 *   its savepoint is rolled back, the others commit, and it runs again alone once it ends
 *   (its statements meanwhile throw). Its first run's effects are undone, so nothing is lost;
 * - anything else on the connection (a query outside a transaction, a transaction of a handle
 *   with plugins, a re-run) waits until no group is open, so it never reads what is not committed;
 *   the precompiled statements (precompiled.ts) check `inTransaction` for the same reason.
 *
 * The one-statement writes of server/db/group-commit.ts join the same group without a
 * transaction of their own (`groupWrite`). PostgreSQL is untouched (server/db/postgres.ts).
 *
 * Bookkeeping (`relaxed` transactions: the webhook dispatcher's claims and attempt outcomes,
 * server/db/bookkeeping.ts) need not survive a power cut: losing one costs a redelivery, never an
 * answer or a delivery of something not on disk. A group opened by one is committed with
 * `synchronous = NORMAL` (set before its BEGIN, the configured level restored right after its
 * end: SQLite refuses to change it inside a transaction), so its COMMIT does not hold the event
 * loop for a sync. Nothing else joins such a group: a request's transaction, a one-statement
 * write or a plain use waits for its COMMIT (at most the rest of the turn) and opens a synced
 * group of its own, which bookkeeping may join. What bookkeeping reads is synced already: every
 * other commit syncs before it returns, and a later synced commit covers the unsynced frames
 * before it in the WAL.
 */

/** The savepoint of the member running now: members never nest, so one name (one prepared statement) serves. */
const SAVEPOINT = 'paydesk_member';

type Outcome = 'committed' | 'rerun';

/** Counts for tests and profiling: COMMITs of groups, transactions and statements in them, re-runs, members set aside, groups committed unsynced. */
export const groupCommitStats = { groups: 0, members: 0, reruns: 0, evicted: 0, relaxed: 0 };

/** SQLite's `synchronous = NORMAL`: in WAL mode, a commit is synced at the next checkpoint or synced commit. */
const NORMAL = 1;

/** A use of the connection: a query or transaction on its own (plain), or a transaction of a group. */
class Use {
  /** The afterCommit work of its transaction. */
  hooks: Array<() => void> = [];
  /** Begun and not yet committed or rolled back. */
  inTransaction = false;
  grant: (() => void) | undefined;
  constructor(readonly kind: 'plain' | 'member') {}
}

export class Member extends Use {
  group: Group | undefined;
  /** Bookkeeping: may commit in a group without a sync (see above). */
  relaxed = false;
  settled = false;
  evicted = false;
  decide!: (o: Outcome) => void;
  readonly outcome = new Promise<Outcome>((resolve) => {
    this.decide = resolve;
  });
  constructor() {
    super('member');
  }
}

/** A one-statement write of group-commit.ts: run when the connection is free, answered after the COMMIT. */
interface Light {
  kind: 'light';
  run: () => unknown;
  alone: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  value?: unknown;
  error?: { err: unknown };
}

interface Group {
  members: Array<Member | Light>;
  /** A member awaits across a turn and is alone: no one joins; the COMMIT waits for it. */
  closing: boolean;
  done: boolean;
  /** Opened by bookkeeping, under `synchronous = NORMAL`: only bookkeeping joins it. */
  relaxed: boolean;
}

export class GroupCommitSqliteDriver implements Driver {
  /** The member `grouped` hands to the acquireConnection its transaction makes (synchronously). */
  claim: Member | undefined;
  readonly #sqlite: SQLite.Database;
  readonly #statements: Pick<SQLite.Database, 'prepare' | 'close'>;
  readonly #connection: DatabaseConnection;
  #holder: Use | undefined;
  #waiters: Array<Use | Light> = [];
  #group: Group | undefined;
  /** The connection's configured `synchronous` level (0–3), restored after each relaxed group. */
  readonly #synchronous: number;

  constructor(sqlite: SQLite.Database, statements: Pick<SQLite.Database, 'prepare' | 'close'>) {
    this.#sqlite = sqlite;
    this.#statements = statements;
    this.#synchronous = sqlite.pragma('synchronous', { simple: true }) as number;
    this.#connection = { executeQuery: (q) => this.#execute(q), streamQuery: (q) => this.#stream(q) };
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    const use = this.claim ?? new Use('plain');
    this.claim = undefined;
    if (this.#waiters.length === 0 && this.#admits(use)) {
      this.#holder = use;
      return Promise.resolve(this.#connection);
    }
    return new Promise((resolve) => {
      use.grant = () => resolve(this.#connection);
      this.#waiters.push(use);
      this.#dispatch();
    });
  }

  async beginTransaction(): Promise<void> {
    const use = this.#holder!;
    if (use instanceof Member) {
      const group = this.#group ?? this.#openGroup(use.relaxed);
      this.#run(`savepoint ${SAVEPOINT}`);
      use.group = group;
      group.members.push(use);
    } else {
      this.#run('begin immediate');
    }
    use.inTransaction = true;
  }

  async commitTransaction(): Promise<void> {
    const use = this.#holder!;
    if (use instanceof Member) {
      if (use.evicted) return;
      this.#run(`release ${SAVEPOINT}`);
      use.inTransaction = false;
      use.settled = true;
      return;
    }
    this.#run('commit');
    use.inTransaction = false;
    for (const fn of use.hooks.splice(0)) fn();
  }

  async rollbackTransaction(): Promise<void> {
    const use = this.#holder!;
    use.hooks.length = 0;
    use.inTransaction = false;
    if (!(use instanceof Member)) {
      if (this.#sqlite.inTransaction) this.#run('rollback');
      return;
    }
    use.settled = true;
    if (use.evicted || use.group !== this.#group) return;
    if (!this.#undoMember()) this.#abort();
  }

  async releaseConnection(): Promise<void> {
    const use = this.#holder;
    this.#holder = undefined;
    const group = this.#group;
    if (group?.closing && use instanceof Member && use.group === group) this.#flush(group);
    else this.#dispatch();
  }

  async savepoint(): Promise<void> {
    throw new Error('nested savepoints are not used on this connection');
  }
  async rollbackToSavepoint(): Promise<void> {
    throw new Error('nested savepoints are not used on this connection');
  }
  async releaseSavepoint(): Promise<void> {
    throw new Error('nested savepoints are not used on this connection');
  }

  async destroy(): Promise<void> {
    if (this.#group && !this.#holder) this.#flush(this.#group);
    this.#statements.close();
  }

  /** The afterCommit work of the transaction holding the connection now; false when none is (after-commit.ts). */
  afterCommit(fn: () => void): boolean {
    const use = this.#holder;
    if (!use?.inTransaction) return false;
    use.hooks.push(fn);
    return true;
  }

  /**
   * Runs `run` (one statement, synchronous) in the current group, or a new one, when the
   * connection is free; resolves with its result after the COMMIT. A failing statement is
   * undone by SQLite alone (statement-level rollback) and its error is answered after the
   * COMMIT too; if the COMMIT fails, `alone` runs it again by itself.
   */
  groupWrite<R>(run: () => R, alone: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiters.push({ kind: 'light', run, alone, resolve: resolve as (v: unknown) => void, reject });
      this.#dispatch();
    });
  }

  #admits(w: Use | Light): boolean {
    if (this.#holder) return false;
    const group = this.#group;
    if (w.kind === 'plain') return !group;
    if (!group) return true;
    return !group.closing && (!group.relaxed || (w instanceof Member && w.relaxed));
  }

  #dispatch(): void {
    for (let i = 0; i < this.#waiters.length && !this.#holder; ) {
      const w = this.#waiters[i]!;
      if (!this.#admits(w)) {
        i++;
        continue;
      }
      this.#waiters.splice(i, 1);
      if (w.kind === 'light') {
        this.#runLight(w);
      } else {
        this.#holder = w;
        w.grant!();
      }
    }
  }

  #runLight(w: Light): void {
    let group: Group;
    try {
      group = this.#group ?? this.#openGroup();
    } catch (err) {
      w.reject(err);
      return;
    }
    group.members.push(w);
    try {
      w.value = w.run();
    } catch (err) {
      if (!this.#sqlite.inTransaction) return this.#abort();
      w.error = { err };
    }
  }

  #openGroup(relaxed = false): Group {
    // Only where the configured level syncs (a test database's NORMAL has nothing to relax).
    relaxed &&= this.#synchronous > NORMAL;
    if (relaxed) this.#run('pragma synchronous = NORMAL');
    try {
      this.#run('begin immediate');
    } catch (err) {
      if (relaxed) this.#restoreSynchronous();
      throw err;
    }
    const group: Group = { members: [], closing: false, done: false, relaxed };
    this.#group = group;
    nextTurn(() => this.#flush(group));
    return group;
  }

  /** Rolls the running member's savepoint back; false when that failed (the group is then lost). */
  #undoMember(): boolean {
    try {
      this.#run(`rollback to ${SAVEPOINT}`);
      this.#run(`release ${SAVEPOINT}`);
      return true;
    } catch {
      return false;
    }
  }

  /** The outer transaction is gone (or must go) uncommitted: every member runs again alone. */
  #abort(): void {
    const group = this.#group!;
    this.#group = undefined;
    group.done = true;
    if (this.#sqlite.inTransaction) {
      try {
        this.#run('rollback');
      } catch {
        // Nothing more to undo: SQLite ended it.
      }
    }
    if (group.relaxed) this.#restoreSynchronous();
    for (const m of group.members) this.#rerun(m);
  }

  #rerun(m: Member | Light): void {
    groupCommitStats.reruns++;
    if (m instanceof Member) m.decide('rerun');
    else m.alone().then(m.resolve, m.reject);
  }

  #flush(group: Group): void {
    if (group.done || this.#group !== group) return;
    const use = this.#holder;
    if (use instanceof Member && use.group === group && !use.settled) {
      // It awaits something other than SQLite, across a turn (see above).
      if (group.members.length === 1) {
        group.closing = true;
        return;
      }
      use.evicted = true;
      groupCommitStats.evicted++;
      use.inTransaction = false;
      use.hooks.length = 0;
      group.members.splice(group.members.indexOf(use), 1);
      use.decide('rerun');
      if (!this.#undoMember()) {
        this.#abort();
        return this.#dispatch();
      }
    }
    group.done = true;
    this.#group = undefined;
    try {
      this.#run('commit');
    } catch {
      group.done = false;
      this.#group = group;
      this.#abort();
      return this.#dispatch();
    }
    if (group.relaxed) {
      this.#restoreSynchronous();
      groupCommitStats.relaxed++;
    }
    groupCommitStats.groups++;
    groupCommitStats.members += group.members.length;
    commitBatchSizes.observe(group.members.length);
    for (const m of group.members) {
      if (m instanceof Member) {
        for (const fn of m.hooks) fn();
        m.decide('committed');
      } else if (m.error) {
        m.reject(m.error.err);
      } else {
        m.resolve(m.value);
      }
    }
    this.#dispatch();
  }

  #run(sql: string): void {
    this.#statements.prepare(sql).run();
  }

  /** Back to the configured level after a relaxed group (outside any transaction). */
  #restoreSynchronous(): void {
    this.#run(`pragma synchronous = ${this.#synchronous}`);
  }

  #check(): void {
    const use = this.#holder;
    if (use && (use as Member).evicted) throw new Error('this transaction waited across an event-loop turn inside a group commit; it runs again alone');
    if (use?.inTransaction && !this.#sqlite.inTransaction) throw new Error('the transaction was rolled back by SQLite');
  }

  #execute<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    this.#check();
    const { sql, parameters } = compiledQuery;
    const stmt = this.#statements.prepare(sql);
    if (stmt.reader) return Promise.resolve({ rows: stmt.all(parameters) as R[] });
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] });
  }

  async *#stream<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    this.#check();
    const { sql, parameters, query } = compiledQuery;
    if (!SelectQueryNode.is(query)) throw new Error('Sqlite driver only supports streaming of select queries');
    for (const row of this.#statements.prepare(sql).iterate(parameters)) yield { rows: [row as R] };
  }
}
