/**
 * Calendar days in the server's time zone: the process zone, which operators set with `TZ`
 * (docs/backoffice.md, "Shift total"). A teller's "today" is the branch's day, not UTC's, and
 * the desktop app runs on the branch's own machine. `new Date(y, m, d)` is local midnight, so
 * daylight-saving days are 23 or 25 hours long as they should be.
 */
export const serverTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** `YYYY-MM-DD` of an instant, in the server's zone. */
export function localDay(at: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())}`;
}

/** The instants [from, to) a `YYYY-MM-DD` day covers in the server's zone. */
export function dayBounds(day: string): { from: Date; to: Date } {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return { from: new Date(y, m - 1, d), to: new Date(y, m - 1, d + 1) };
}
