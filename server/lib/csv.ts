/**
 * A cell a spreadsheet may run as a formula: one starting with `= + - @` (or their full-width
 * forms, which some spreadsheets fold), also behind leading spaces, NBSP, zero-width or other
 * invisible characters and line breaks (trimmed on import), or starting with a tab or line break.
 */
const FORMULA = /^[\s\u200b-\u200f\u2060-\u2064\ufeff\u180e]*[=+\-@\uff1d\uff0b\uff0d\uff20]|^[\t\r\n]/;

/** One CSV cell: quoted when needed, and a cell a spreadsheet would run as a formula is written as text. */
export const csvCell = (v: string | number | null): string => {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  let s = v;
  // A plain decimal number ("-85.00") is a number to a spreadsheet and no formula: only text is neutralised.
  if (FORMULA.test(s) && !/^-\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Rows → CSV text with CRLF line ends (RFC 4180), header first. */
export const csvText = (header: readonly string[], rows: Array<Array<string | number | null>>): string =>
  `${[header.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\r\n')}\r\n`;

/**
 * Every CSV export writes its times in UTC (ISO 8601 with `Z`, as stored) and says so in a last
 * column, `time_zone`, whose every cell is this: a column added at the end, so the names and
 * places of the columns before it are unchanged for existing readers.
 */
export const CSV_TIME_ZONE = 'UTC';
