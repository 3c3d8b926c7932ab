import type SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Driver, type Transaction, type TransactionBuilder } from 'kysely';
import { Member, type GroupCommitSqliteDriver } from './sqlite-group-commit';

/**
 * Kysely on the group-commit driver (server/db/sqlite-group-commit.ts): its `transaction()` joins
 * the event-loop turn's group, and `execute` answers once the group's COMMIT is done (or, when
 * that failed or the transaction was set aside, once it has run again alone).
 */
class GroupCommitDialect extends SqliteDialect {
  readonly #driver: Driver;
  constructor(driver: Driver) {
    super({ database: {} as SQLite.Database });
    this.#driver = driver;
  }
  override createDriver(): Driver {
    return this.#driver;
  }
}

export class GroupCommitKysely<DB> extends Kysely<DB> {
  readonly #driver: GroupCommitSqliteDriver;
  constructor(driver: GroupCommitSqliteDriver) {
    super({ dialect: new GroupCommitDialect(driver) });
    this.#driver = driver;
  }
  override transaction(): TransactionBuilder<DB> {
    return grouped(super.transaction(), this.#driver, false);
  }
  /** A transaction of bookkeeping, whose commit need not be synced (server/db/bookkeeping.ts). */
  relaxedTransaction(): TransactionBuilder<DB> {
    return grouped(super.transaction(), this.#driver, true);
  }
}

function grouped<DB>(builder: TransactionBuilder<DB>, driver: GroupCommitSqliteDriver, relaxed: boolean): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, prop, receiver) {
      if (prop === 'execute') return <T>(callback: (trx: Transaction<DB>) => Promise<T>) => runGrouped(target, callback, driver, relaxed);
      if (prop === 'setIsolationLevel' || prop === 'setAccessMode') {
        return (value: never) => grouped((target[prop] as (v: never) => TransactionBuilder<DB>).call(target, value), driver, relaxed);
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

async function runGrouped<DB, T>(target: TransactionBuilder<DB>, callback: (trx: Transaction<DB>) => Promise<T>, driver: GroupCommitSqliteDriver, relaxed: boolean): Promise<T> {
  const member = new Member();
  member.relaxed = relaxed;
  // Kysely asks the driver for the connection synchronously inside execute (once it is
  // initialised); a claim left unused means it ran as a plain transaction.
  driver.claim = member;
  let running: Promise<T>;
  try {
    running = target.execute(callback);
  } finally {
    driver.claim = undefined;
  }
  let value: T | undefined;
  let failure: { err: unknown } | undefined;
  try {
    value = await running;
  } catch (err) {
    failure = { err };
  }
  if (member.group && (await member.outcome) === 'rerun') return target.execute(callback);
  if (failure) throw failure.err;
  return value as T;
}
