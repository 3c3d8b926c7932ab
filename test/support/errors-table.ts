import { ERROR_CODES } from '../../server/lib/errors';

/**
 * The error-code table of docs/errors.md, rendered from ERROR_CODES (sorted by status, then code).
 * Print it with `npx tsx test/support/errors-table.ts` after changing server/lib/errors.ts.
 */
export function renderErrorTable(): string {
  const rows = Object.entries(ERROR_CODES)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, { status, meaning }]) => `| \`${code}\` | ${status} | ${meaning.replace(/\|/g, '\\|')} |`);
  return ['| Code | HTTP status | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && /errors-table\.ts$/.test(process.argv[1])) process.stdout.write(`${renderErrorTable()}\n`);
