import type SQLite from 'better-sqlite3';
import type Pg from 'pg';
import { AppError } from '../../lib/errors';

/**
 * What `db:copy` copies, read from the two databases' own catalogs (SQLite's `sqlite_master` and
 * `pragma_table_xinfo`, PostgreSQL's `pg_catalog`), never from a list in this code: a table or
 * column a later migration adds is copied without a change here. Only these are named:
 *
 * - Bookkeeping that is not data: `sqlite_*` (SQLite's own), `kysely_migration*` (the schema
 *   version, compared rather than copied: the target is migrated by this build) and the copy's
 *   own progress table.
 * - SQLite's session search index: every virtual table (the FTS5 trigram indexes) and every table
 *   named after one (`<vtab>_…`: FTS5's shadow tables and the index's mark, ranges and range
 *   merchants). On PostgreSQL the search is the trigram indexes of `checkout_sessions` itself,
 *   written as its rows are inserted, so nothing of the SQLite index has a place there.
 * - Columns PostgreSQL computes (GENERATED … STORED: the lower-cased search columns) are left to it.
 * - A PostgreSQL column named `rowid` that the SQLite table does not declare is SQLite's implicit
 *   rowid (the insertion order the lists end their ORDER BY with): it takes the source's rowid.
 * - Identity and serial columns take the source's values and their sequences are set past them.
 */

export const PROGRESS_TABLE = 'db_copy_progress';

/** A refusal: nothing was written to the target (the CLI prints it as one line, exit 1). */
export class CopyRefused extends AppError {
  constructor(message: string) {
    super('STATE_CONFLICT', message);
  }
}

/** The copy's connection parses no value: a boolean comes back as PostgreSQL's 't' or 'f'. */
const yes = (v: unknown): boolean => v === true || v === 't';
const BOOKKEEPING = /^(sqlite_|kysely_migration)/;

/** How a value is carried over and compared, by the target column's type. */
export type ValueKind = 'int' | 'float' | 'numeric' | 'bool' | 'bytes' | 'json' | 'timestamp' | 'text';

interface CopyColumn {
  /** The target column. */
  name: string;
  /** What the source reads for it: the column of the same name, or SQLite's `rowid`. */
  source: string;
  kind: ValueKind;
}

export interface CopyTable {
  name: string;
  columns: CopyColumn[];
  /** ORDER BY of the source read: SQLite's rowid (insertion order), or the key of a WITHOUT ROWID table. */
  sourceOrder: string;
  /** Identity or serial columns whose sequence is set past the copied rows. */
  sequences: string[];
  /** Target columns with no source value, left to their default (none today). */
  defaulted: string[];
  /** Whether the target has a unique key on it (a resumed copy skips the rows already there by it). */
  keyed: boolean;
}

export interface CopyPlan {
  /** In dependency order: a table comes after every table its foreign keys name. */
  tables: CopyTable[];
  /** Source tables not copied, with the reason. */
  skipped: Array<{ table: string; reason: string }>;
  /** Target tables with no source counterpart (left as migrated). */
  targetOnly: string[];
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

interface SourceTable {
  name: string;
  withoutRowid: boolean;
  columns: string[];
  pk: string[];
}

export function readSourceCatalog(sqlite: SQLite.Database): { tables: SourceTable[]; skipped: Array<{ table: string; reason: string }> } {
  const all = sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string | null }>;
  const virtual = all.filter((t) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  const list = new Map((sqlite.prepare("SELECT name, wr FROM pragma_table_list WHERE schema = 'main'").all() as Array<{ name: string; wr: number }>).map((r) => [r.name, r.wr === 1]));
  const tables: SourceTable[] = [];
  const skipped: Array<{ table: string; reason: string }> = [];
  for (const { name } of all) {
    if (BOOKKEEPING.test(name)) continue;
    const index = virtual.find((v) => name === v || name.startsWith(`${v}_`));
    if (index !== undefined) {
      skipped.push({ table: name, reason: `SQLite's search index (${index}); PostgreSQL indexes the sessions themselves` });
      continue;
    }
    // hidden: 0 a column, 1 a virtual table's hidden column, 2/3 generated (computed again by the target).
    const cols = sqlite.prepare('SELECT name, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid').all(name) as Array<{ name: string; pk: number; hidden: number }>;
    tables.push({
      name,
      withoutRowid: list.get(name) === true,
      columns: cols.filter((c) => c.hidden === 0).map((c) => c.name),
      pk: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
    });
  }
  return { tables, skipped };
}

interface TargetColumn {
  name: string;
  type: string;
  category: string;
  generated: boolean;
  sequenced: boolean;
  nullable: boolean;
  hasDefault: boolean;
}

interface TargetTable {
  name: string;
  columns: TargetColumn[];
  references: string[];
  keyed: boolean;
}

export async function readTargetCatalog(client: Pg.Client): Promise<TargetTable[]> {
  const cols = await client.query<{ table: string; name: string; type: string; category: string; generated: string; sequenced: string; nullable: string; has_default: string }>(`
    SELECT c.relname AS table, a.attname AS name, t.typname AS type, t.typcategory AS category,
      a.attgenerated <> '' AS generated,
      (a.attidentity <> '' OR pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL) AS sequenced,
      NOT a.attnotnull AS nullable, a.atthasdef AS has_default
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_type t ON t.oid = a.atttypid
    WHERE c.relkind IN ('r', 'p')
    ORDER BY c.relname, a.attnum`);
  const refs = await client.query<{ table: string; ref: string }>(`
    SELECT DISTINCT c.relname AS table, r.relname AS ref
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_class r ON r.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    WHERE k.contype = 'f'`);
  const keyed = await client.query<{ table: string }>(`
    SELECT DISTINCT c.relname AS table
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    WHERE i.indisunique AND i.indpred IS NULL`);
  const keyedNames = new Set(keyed.rows.map((r) => r.table));
  const tables = new Map<string, TargetTable>();
  for (const c of cols.rows) {
    if (BOOKKEEPING.test(c.table) || c.table === PROGRESS_TABLE) continue;
    const table = tables.get(c.table) ?? { name: c.table, columns: [], references: [], keyed: keyedNames.has(c.table) };
    table.columns.push({ name: c.name, type: c.type, category: c.category, generated: yes(c.generated), sequenced: yes(c.sequenced), nullable: yes(c.nullable), hasDefault: yes(c.has_default) });
    tables.set(c.table, table);
  }
  for (const r of refs.rows) tables.get(r.table)?.references.push(r.ref);
  return [...tables.values()];
}

function kindOf(c: TargetColumn): ValueKind {
  if (c.type === 'bool') return 'bool';
  if (c.type === 'bytea') return 'bytes';
  if (c.type === 'json' || c.type === 'jsonb') return 'json';
  if (c.type === 'timestamp' || c.type === 'timestamptz') return 'timestamp';
  if (c.type === 'int2' || c.type === 'int4' || c.type === 'int8') return 'int';
  if (c.type === 'float4' || c.type === 'float8') return 'float';
  if (c.type === 'numeric') return 'numeric';
  return 'text';
}

/** Tables in an order where every table comes after those it references (ties by name); a cycle is refused. */
function dependencyOrder(names: string[], references: Map<string, string[]>): string[] {
  const left = new Set(names);
  const out: string[] = [];
  while (left.size > 0) {
    const ready = [...left].filter((n) => (references.get(n) ?? []).every((r) => r === n || !left.has(r))).sort();
    if (ready.length === 0) throw new CopyRefused(`the target's foreign keys form a cycle between ${[...left].sort().join(', ')}: no order to copy them in`);
    for (const n of ready) {
      out.push(n);
      left.delete(n);
    }
  }
  return out;
}

/**
 * Matches the two catalogs. Refused: a source table or column the target lacks (its rows would
 * be lost), and a target column that is required and has nothing to take its value from.
 */
export function planCopy(source: ReturnType<typeof readSourceCatalog>, target: TargetTable[]): CopyPlan {
  const byName = new Map(target.map((t) => [t.name, t]));
  const problems: string[] = [];
  const tables: CopyTable[] = [];
  for (const s of source.tables) {
    const t = byName.get(s.name);
    if (!t) {
      problems.push(`table ${s.name} is not in the target`);
      continue;
    }
    const targetCols = new Map(t.columns.map((c) => [c.name, c]));
    const columns: CopyColumn[] = [];
    for (const name of s.columns) {
      const c = targetCols.get(name);
      if (!c) problems.push(`column ${s.name}.${name} is not in the target`);
      else if (c.generated) problems.push(`column ${s.name}.${name} is computed by the target and cannot take the source's values`);
      else columns.push({ name, source: name, kind: kindOf(c) });
    }
    const defaulted: string[] = [];
    for (const c of t.columns) {
      if (c.generated || s.columns.includes(c.name)) continue;
      if (c.name === 'rowid' && !s.withoutRowid) columns.push({ name: c.name, source: 'rowid', kind: kindOf(c) });
      else if (c.nullable || c.hasDefault || c.sequenced) defaulted.push(c.name);
      else problems.push(`column ${s.name}.${c.name} is required in the target and has no source column`);
    }
    tables.push({
      name: s.name,
      columns,
      sourceOrder: s.withoutRowid ? s.pk.map(quoteIdent).join(', ') : 'rowid',
      sequences: t.columns.filter((c) => c.sequenced && columns.some((k) => k.name === c.name)).map((c) => c.name),
      defaulted,
      keyed: t.keyed,
    });
  }
  if (problems.length > 0) {
    const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
    throw new CopyRefused(`the desk's database and the target differ in schema: ${problems.slice(0, 5).join('; ')}${more}`);
  }
  const copied = new Set(tables.map((t) => t.name));
  const order = dependencyOrder(
    [...copied],
    new Map(target.filter((t) => copied.has(t.name)).map((t) => [t.name, t.references.filter((r) => copied.has(r))])),
  );
  const rank = new Map(order.map((n, i) => [n, i]));
  tables.sort((a, b) => rank.get(a.name)! - rank.get(b.name)!);
  return { tables, skipped: source.skipped, targetOnly: target.filter((t) => !source.tables.some((s) => s.name === t.name)).map((t) => t.name).sort() };
}
