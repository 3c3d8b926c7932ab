import qs from 'qs';
import type { z } from 'zod';
import { LIMITS } from '../../shared/schemas/merchant';
import { AppError, formatPath } from '../lib/errors';
import { MAX_FORM_FIELDS, MAX_FORM_NAME_CHARS, namesTooLong, tooManyFields } from './body-parsers';

/**
 * Form and multipart bodies arrive as flat string fields (`customer[name]`, `lines[0][code]`).
 * They are nested with qs, then coerced to the types the route's zod schema expects, so that
 * the same schema validates JSON, urlencoded and multipart bodies alike.
 */
/**
 * A field name with a `__proto__` segment (`metadata[__proto__]`) is refused naming the object
 * that would hold it, as in a JSON body (body-parsers.ts), rather than silently dropped by qs.
 */
function refuseProtoKeys(keys: Iterable<string>): void {
  for (const key of keys) {
    const segments = key.split(/[[\]]+/).filter(Boolean);
    const at = segments.indexOf('__proto__');
    if (at < 0) continue;
    const holder = formatPath(segments.slice(0, at).map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
    throw new AppError('INVALID_ARGUMENT', `${holder || 'body'}: key "__proto__" is not allowed`);
  }
}

export function nestFormFields(flat: Record<string, unknown>): Record<string, unknown> {
  refuseProtoKeys(Object.keys(flat));
  const clean: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) {
    if (Buffer.isBuffer(v) || (Array.isArray(v) && v.some((x) => Buffer.isBuffer(x)))) continue; // uploaded files are ignored
    clean[k] = v;
  }
  return qs.parse(clean as Record<string, string>, {
    depth: 5,
    arrayLimit: LIMITS.linesPerRequest,
    parameterLimit: 10_000,
    allowPrototypes: false,
  }) as Record<string, unknown>;
}

export function parseUrlEncoded(body: string): Record<string, unknown> {
  // Counted before parsing, as multipart bodies are (body-parsers.ts MAX_FORM_FIELDS).
  let amps = 0;
  for (let at = body.indexOf('&'); at >= 0; at = body.indexOf('&', at + 1)) if (++amps >= MAX_FORM_FIELDS) throw tooManyFields();
  const keys = [...new URLSearchParams(body).keys()];
  if (keys.reduce((n, k) => n + k.length, 0) > MAX_FORM_NAME_CHARS) throw namesTooLong();
  refuseProtoKeys(keys);
  return qs.parse(body, { depth: 5, arrayLimit: LIMITS.linesPerRequest, parameterLimit: 10_000, allowPrototypes: false }) as Record<string, unknown>;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[] };
const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } })?._zod?.def;

/** Converts string leaves to the number/boolean the schema wants; leaves anything else alone. */
export function coerceToSchema(schema: unknown, value: unknown): unknown {
  const def = defOf(schema);
  if (!def) return value;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      if (value === '' && (def.type === 'optional' || def.type === 'default')) return undefined;
      return coerceToSchema(def.innerType, value);
    case 'pipe':
      return coerceToSchema(def.in, value);
    case 'number':
    case 'int':
      if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
      return value;
    case 'boolean':
      if (typeof value === 'string') {
        const v = value.trim().toLowerCase();
        if (v === 'true' || v === '1' || v === 'on') return true;
        if (v === 'false' || v === '0' || v === 'off') return false;
      }
      return value;
    case 'union': {
      // Only the first option that changes the value is used (enough for our schemas).
      for (const option of def.options ?? []) {
        const next = coerceToSchema(option, value);
        if (next !== value) return next;
      }
      return value;
    }
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [key, child] of Object.entries(def.shape ?? {})) {
        if (key in out) out[key] = coerceToSchema(child, out[key]);
      }
      return out;
    }
    case 'array': {
      // qs gives an object for sparse or very long arrays ({"0": …, "5": …}): keep the order of indexes.
      let arr: unknown[] | undefined;
      if (Array.isArray(value)) arr = value;
      else if (value && typeof value === 'object' && Object.keys(value).every((k) => /^\d+$/.test(k))) {
        arr = Object.entries(value)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([, v]) => v);
      }
      if (!arr) return value;
      return arr.map((item) => coerceToSchema(def.element, item));
    }
    case 'unknown':
    case 'any':
      // Free-form (metadata values, lines checked one by one later): infer numbers only where it is unambiguous.
      return value;
    default:
      return value;
  }
}
