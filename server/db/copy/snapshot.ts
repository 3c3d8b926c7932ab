import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { migrations } from '../migrations/index';
import { MIGRATION_TABLE } from '../schema-version';

/**
 * The desk's database as `db:copy` reads it: a copy made with SQLite's online backup into a
 * private temporary folder (0700, the file 0600: it holds the same secrets), read from there and
 * removed at the end. The desk's own file is only ever opened read-only, so the command never
 * changes it, and a desk that is still running keeps working: the backup is one consistent
 * moment of it (SQLite restarts the backup when the desk writes meanwhile). What the desk writes
 * after that moment is not in the copy, which is why the move stops the desk first
 * (docs/operations.md, "Moving a desk to a central server"). TMPDIR chooses the folder: it needs
 * room for one more copy of the file.
 */
export interface Snapshot {
  /** The desk's file, as given (absolute). */
  file: string;
  db: SQLite.Database;
  /** When the backup finished (the moment the copy holds). */
  takenAt: string;
  close(): void;
}

/** Snapshot folders of this process: removed on Ctrl-C or SIGTERM too, not left holding secrets. */
const live = new Set<string>();
let hooked = false;

function removeLive(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

function track(dir: string): void {
  live.add(dir);
  if (hooked) return;
  hooked = true;
  process.once('exit', removeLive);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      removeLive();
      process.exit(code);
    });
  }
}

function untrack(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
}

export async function takeSnapshot(file: string): Promise<Snapshot> {
  const source = resolve(file);
  if (!existsSync(source)) throw new Error(`no database at ${source}; check DATA_DIR`);
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-copy-'));
  track(dir);
  chmodSync(dir, 0o700);
  const out = join(dir, 'snapshot.sqlite');
  try {
    closeSync(openSync(out, 'wx', 0o600));
    const desk = new SQLite(source, { readonly: true, fileMustExist: true });
    try {
      desk.pragma('busy_timeout = 5000');
      await desk.backup(out);
    } finally {
      desk.close();
    }
    const db = new SQLite(out, { readonly: true, fileMustExist: true });
    return {
      file: source,
      db,
      takenAt: new Date().toISOString(),
      close: () => {
        db.close();
        untrack(dir);
      },
    };
  } catch (err) {
    untrack(dir);
    throw err;
  }
}

/**
 * The migrations the snapshot has, against this build's: the copy needs both databases at this
 * build's schema, so an older or a newer desk file is refused with what to do.
 */
export function sourceSchemaRefusal(db: SQLite.Database): string | null {
  const known = Object.keys(migrations);
  const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(MIGRATION_TABLE) as number;
  const applied = has ? (db.prepare(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`).pluck().all() as string[]) : [];
  const unknown = applied.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    return `the desk's database is newer than this build (it has migration ${unknown[unknown.length - 1]}, this build knows up to ${known[known.length - 1]}): run db:copy from the Paydesk version the desk runs`;
  }
  const pending = known.filter((n) => !applied.includes(n));
  if (pending.length > 0) {
    return `the desk's database is older than this build (at ${applied[applied.length - 1] ?? 'no migration'}, this build is at ${known[known.length - 1]}): start the desk once on this version (it migrates its file at start), stop it, then copy`;
  }
  return null;
}
