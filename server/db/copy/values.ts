import type { ValueKind } from './catalog';

/**
 * The engine-specific value conversions of `db:copy`, by the target column's kind
 * (catalog.ts). SQLite values are read with safe integers (a BigInt for every INTEGER, so no
 * amount or counter is rounded through a double); PostgreSQL values are read as the server's
 * text (the copy's connection parses no type).
 *
 * - `toTarget`: the parameter the INSERT sends for a source value. Integers go as their decimal
 *   text, booleans from SQLite's 0/1, blobs as bytes, JSON and timestamps as their text (the
 *   target parses them: a timestamp keeps the microseconds PostgreSQL keeps).
 * - `canonicalSource` / `canonicalTarget`: one text per value, equal on both sides when the
 *   value is the same, for `--verify`'s checksums. Text columns (every timestamp, hash and id
 *   Paydesk writes today) are compared byte for byte.
 */

type SourceValue = string | number | bigint | Buffer | null;

export function toTarget(kind: ValueKind, v: SourceValue): string | number | Buffer | null {
  if (v === null) return null;
  if (kind === 'bool') return truthy(v) ? 'true' : 'false';
  if (kind === 'bytes') return Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8');
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return v;
}

function truthy(v: SourceValue): boolean {
  if (typeof v === 'string') return /^(t|true|1|y|yes|on)$/i.test(v.trim());
  return Number(v) !== 0;
}

/** Keys sorted at every level: jsonb does not keep the source text's key order or spacing. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A decimal written without trailing zeros ("1.50" and 1.5 are one value). */
function decimal(text: string): string {
  const t = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return t;
  return t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
}

/**
 * Microseconds since the epoch of an ISO-8601 text (the form Paydesk writes: `…T…Z`), a zone
 * offset honoured; a text without one is read as UTC, as PostgreSQL reads it for `timestamp`.
 */
function isoMicros(text: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(text.trim());
  if (!m) return text;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    ms -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0)) * 60_000;
  }
  return (BigInt(ms) * 1000n + BigInt(frac.padEnd(6, '0') || '0')).toString();
}

export function canonicalSource(kind: ValueKind, v: SourceValue): string | null {
  if (v === null) return null;
  switch (kind) {
    case 'int':
      return typeof v === 'bigint' ? v.toString() : BigInt(String(v).trim()).toString();
    case 'float':
      return String(Number(v));
    case 'numeric':
      return decimal(String(v));
    case 'bool':
      return truthy(v) ? 't' : 'f';
    case 'bytes':
      return (Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8')).toString('hex');
    case 'json':
      return stableJson(JSON.parse(Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
    case 'timestamp':
      return isoMicros(String(v));
    default:
      return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
}

/**
 * The target's text of a value, as read by `targetSelect`'s expression for the kind. Timestamps
 * are selected as epoch microseconds (whatever the session's time zone), bytea in hex (`\x…`).
 */
export function canonicalTarget(kind: ValueKind, v: string | null): string | null {
  if (v === null) return null;
  switch (kind) {
    case 'int':
      return BigInt(v).toString();
    case 'float':
      return String(Number(v));
    case 'numeric':
      return decimal(v);
    case 'bytes':
      return v.startsWith('\\x') ? v.slice(2).toLowerCase() : Buffer.from(v, 'utf8').toString('hex');
    case 'json':
      return stableJson(JSON.parse(v));
    default:
      return v;
  }
}

/** The SELECT expression `--verify` reads a target column with. */
export function targetSelect(kind: ValueKind, quoted: string): string {
  if (kind === 'timestamp') return `(extract(epoch from ${quoted}) * 1000000)::bigint::text`;
  return quoted;
}
