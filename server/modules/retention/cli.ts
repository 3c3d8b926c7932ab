import type { Command } from '../../cli/command';
import { withDb } from '../../cli/with-db';
import { systemClock } from '../../lib/clock';
import { randomIds } from '../../lib/ids';
import { dbStats, prune } from './retention.service';
import { rebuildInvoiceSummaries } from '../../domain/invoice-summary';
import { loadConfig } from '../../config';
import { connectDatabase, migrate } from '../../db/database';
import { rebuildSearchIndex } from '../../db/search';

/**
 * `npm run admin -- db:stats [--json]` (table sizes and row counts) and
 * `db:prune [--dry-run] [--json]` (removes what the retention settings say is past keeping,
 * in batches: safe beside a running server), and `invoices:rebuild [--json]` (recomputes the
 * invoice summaries from lines and sessions in one transaction: after a restore or a manual
 * change of those tables), and `search:rebuild [--json]` (SQLite, server stopped: the session
 * search's trigram index rebuilt from the table, in ranges, in one transaction: after a restore
 * of checkout_sessions alone or a full VACUUM). Merged into server/cli/admin.ts's command table.
 */

const mb = (bytes: number | null) => (bytes === null ? '-' : `${(bytes / 1e6).toFixed(1)} MB`);

export const dbCommands: Record<string, Command> = {
  'invoices:rebuild': {
    summary: 'Recompute every invoice summary from its lines and sessions (after a restore)',
    usage: 'invoices:rebuild [--json]',
    examples: ['npm run admin -- invoices:rebuild'],
    options: {},
    run: async () => {
      const rows = await withDb((db) => rebuildInvoiceSummaries(db));
      return { json: { invoices: rows }, text: `invoice summaries rebuilt: ${rows} invoices` };
    },
  },
  'search:rebuild': {
    summary: 'Rebuild the session search index from the sessions table (SQLite, server stopped)',
    usage: 'search:rebuild [--json]',
    examples: ['npm run admin -- search:rebuild --json'],
    options: {},
    run: async () => {
      const database = connectDatabase(loadConfig());
      try {
        await migrate(database.db);
        if (database.engine !== 'sqlite') return { json: { rebuilt: false }, text: 'PostgreSQL: the trigram indexes are part of the table, nothing to rebuild' };
        const start = performance.now();
        rebuildSearchIndex(database.sqlite);
        const ranges = database.sqlite.prepare('SELECT count(*) FROM checkout_sessions_search_ranges').pluck().get() as number;
        const seconds = Math.round(performance.now() - start) / 1000;
        return { json: { rebuilt: true, ranges, seconds }, text: `session search index rebuilt: ${ranges} ranges in ${seconds} s` };
      } finally {
        await database.close();
      }
    },
  },
  'db:stats': {
    summary: 'Show table sizes and row counts, and what db:prune would remove',
    usage: 'db:stats [--json]',
    examples: ['npm run admin -- db:stats'],
    options: {},
    run: async () => {
      const stats = await withDb((db) => dbStats(db));
      const width = Math.max(...stats.tables.map((t) => t.table.length));
      return {
        json: stats,
        text: [`${stats.engine}: ${mb(stats.total_bytes)} in all`, ...stats.tables.map((t) => `${t.table.padEnd(width)}  ${String(t.rows).padStart(10)} rows  ${mb(t.bytes).padStart(10)}`)].join('\n'),
      };
    },
  },
  'db:prune': {
    summary: 'Remove history older than the retention settings, in batches, beside a running server',
    usage: 'db:prune [--dry-run] [--json]',
    examples: ['npm run admin -- db:prune --dry-run', 'npm run admin -- db:prune --json'],
    options: { 'dry-run': { type: 'boolean' } },
    run: async (f) => {
      const dryRun = f['dry-run'] === true;
      const rules = await withDb((db, config) => prune(db, { clock: systemClock, ids: randomIds, retention: config.retention }, { dryRun }));
      return {
        json: { dry_run: dryRun, rules },
        text: [`${dryRun ? 'would prune' : 'pruned'}:`, ...rules.map((r) => `  ${r.rule}: ${r.rows} rows (before ${r.cutoff})`)].join('\n'),
      };
    },
  },
};
