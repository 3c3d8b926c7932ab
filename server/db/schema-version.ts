import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';
import { migrations } from './migrations/index';

/**
 * Which migrations the database has, against the ones this build knows. Read from Kysely's
 * own bookkeeping table (`kysely_migration`, the same on both engines), never written here:
 * `npm run admin -- db:migrate` writes it (docs/operations.md, "Upgrades").
 */
export const MIGRATION_TABLE = 'kysely_migration';

export interface SchemaStatus {
  /** Applied migrations, in order. */
  applied: string[];
  /** Known to this build and not applied yet: the instance serves, but /readyz says 503. */
  pending: string[];
  /** Applied but unknown to this build (a newer version migrated): the instance refuses to start. */
  unknown: string[];
  /** The last migration this build knows. */
  latestKnown: string;
}

const known = Object.keys(migrations);

function isMissingTable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '42P01' || /no such table/i.test(e?.message ?? '');
}

export async function schemaStatus(db: Kysely<Database>): Promise<SchemaStatus> {
  let applied: string[];
  try {
    const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
    applied = rows.rows.map((r) => r.name);
  } catch (err) {
    if (!isMissingTable(err)) throw err;
    applied = []; // a fresh database: nothing migrated yet
  }
  const have = new Set(applied);
  const knownSet = new Set(known);
  return {
    applied,
    pending: known.filter((n) => !have.has(n)),
    unknown: applied.filter((n) => !knownSet.has(n)),
    latestKnown: known[known.length - 1] ?? '',
  };
}

/** The one-line reason an instance refuses to start on this schema, or null when it may start. */
export function refusalOf(status: SchemaStatus): string | null {
  if (status.unknown.length === 0) return null;
  return (
    `the database schema is newer than this build: it has migration ${status.unknown[status.unknown.length - 1]} ` +
    `(this build knows up to ${status.latestKnown}); run the Paydesk version that applied it (its db:migrate), never an older one`
  );
}

/** Why /readyz answers 503 on this schema, or null when it is current. */
export function staleReasonOf(status: SchemaStatus): string | null {
  if (status.pending.length === 0) return null;
  const have = status.applied[status.applied.length - 1] ?? 'none';
  return `the database schema is behind this build (at ${have}, this build needs ${status.latestKnown}): run \`npm run admin -- db:migrate\``;
}
