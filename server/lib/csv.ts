/** One CSV cell: quoted when needed, and a cell a spreadsheet would run as a formula is written as text. */
export const csvCell = (v: string | number | null): string => {
  if (v === null) return '';
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Rows → CSV text with CRLF line ends (RFC 4180), header first. */
export const csvText = (header: readonly string[], rows: Array<Array<string | number | null>>): string =>
  `${[header.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\r\n')}\r\n`;
