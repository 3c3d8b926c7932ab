import type { Command } from './command';
import { loadConfig } from '../config';
import { invalid } from '../lib/errors';
import { describeDatabase } from '../db/database';
import { copyDesk, CopyRefused, type TableProgress } from '../db/copy/copy';
import { verifyCopy, type TableCheck } from '../db/copy/verify';

/**
 * `npm run admin -- db:copy --to postgres://… [--resume] [--batch-size N] [--json]` and
 * `db:copy --to postgres://… --verify [--json]`: a desk's SQLite database (the one of DATA_DIR)
 * into an empty PostgreSQL database, and the comparison of the two (docs/operations.md, "Moving a
 * desk to a central server"). The work is in server/db/copy/. Merged into admin.ts's command table.
 *
 * Output: a line per table as it is done (rows, total, rate), on stdout, or on stderr with
 * `--json`, whose stdout is the one JSON report. `--verify` exits non-zero on any difference,
 * after printing the comparison.
 */

const USAGE = 'db:copy --to postgres://… [--resume] [--batch-size N] | db:copy --to postgres://… --verify [--json]';

const n = (v: number) => v.toLocaleString('en-US');

function progressLine(p: TableProgress): string {
  if (p.state === 'already copied') return `${p.table.padEnd(28)} ${n(p.total).padStart(11)} rows  already copied`;
  const done = p.state === 'copied' ? 'copied' : 'copying';
  return `${p.table.padEnd(28)} ${n(p.rows).padStart(11)} / ${n(p.total)} rows  ${done} in ${p.seconds.toFixed(1)} s  (${n(p.rows_per_s)} rows/s)`;
}

function checkLine(c: TableCheck): string {
  return `${c.table.padEnd(28)} ${n(c.source_rows).padStart(11)} / ${n(c.target_rows).padStart(11)} rows  ${c.equal ? 'equal' : 'DIFFERENT'}  ${c.target_checksum.slice(0, 16)}`;
}

export const dbCopyCommands: Record<string, Command> = {
  'db:copy': {
    summary: "Copy a desk's SQLite database (DATA_DIR) into an empty PostgreSQL database, or --verify the copy",
    usage: USAGE,
    examples: ['DATA_DIR=/srv/paydesk npm run admin -- db:copy --to postgres://paydesk@db.internal/paydesk', 'DATA_DIR=/srv/paydesk npm run admin -- db:copy --to postgres://paydesk@db.internal/paydesk --verify --json'],
    options: { to: { type: 'string' }, resume: { type: 'boolean' }, verify: { type: 'boolean' }, 'batch-size': { type: 'string' } },
    run: async (f) => {
      const to = typeof f.to === 'string' ? f.to.trim() : '';
      if (!/^postgres(?:ql)?:\/\/\S+$/.test(to)) throw invalid('--to', 'must be the target postgres:// (or postgresql://) URL');
      const batchText = typeof f['batch-size'] === 'string' ? f['batch-size'].trim() : '1000';
      const batchSize = Number(batchText);
      if (!/^\d+$/.test(batchText) || batchSize < 1 || batchSize > 10_000) throw invalid('--batch-size', 'must be a whole number of rows from 1 to 10000');
      if (f.verify && (f.resume || f['batch-size'] !== undefined)) throw invalid('--verify', 'compares only: give it without --resume or --batch-size');
      const config = loadConfig();
      // The source is always the desk's SQLite file: a DATABASE_URL here would say otherwise.
      if (config.databaseUrl) throw invalid('DATABASE_URL', 'db:copy reads the SQLite database of DATA_DIR: unset DATABASE_URL (the target is --to)');
      const target = describeDatabase({ databaseUrl: to, databaseFile: '' });
      const say = (line: string) => (f.json ? process.stderr : process.stdout).write(`${line}\n`);
      if (f.verify) {
        const report = await verifyCopy({ sourceFile: config.databaseFile, targetUrl: to, progress: (c) => say(checkLine(c)) });
        const summary = report.equal
          ? `verified: ${report.tables.length} tables equal in rows and checksums between ${report.source} and ${target}`
          : `${report.differences.length} difference(s) between ${report.source} and ${target}:\n${report.differences.map((d) => `  ${d}`).join('\n')}`;
        if (!report.equal) {
          process.stdout.write(f.json ? `${JSON.stringify({ target, ...report })}\n` : `${summary}\n`);
          throw new CopyRefused(`the target differs from the desk's database (${report.differences[0]})`);
        }
        return { json: { target, ...report }, text: summary };
      }
      const report = await copyDesk({ sourceFile: config.databaseFile, targetUrl: to, resume: f.resume === true, batchSize, progress: (p) => say(progressLine(p)) });
      const rows = report.tables.reduce((sum, t) => sum + t.total, 0);
      return {
        json: { target, ...report },
        text: [
          `copied ${n(rows)} rows in ${report.tables.length} tables from ${report.source} (as of ${report.snapshot_at}) to ${target} in ${(report.duration_ms / 1000).toFixed(1)} s${report.resumed ? ' (resumed)' : ''}`,
          `not copied: ${report.skipped.length} tables of SQLite's session search index (PostgreSQL indexes the sessions themselves)`,
          `what the desk writes after ${report.snapshot_at} is not in the copy: the desk stays stopped from the copy to the switch`,
          `next: npm run admin -- db:copy --to … --verify`,
        ].join('\n'),
      };
    },
  },
};
