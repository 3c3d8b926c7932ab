import type { FastifyInstance } from 'fastify';
import { invalid } from '../lib/errors';

/**
 * No text Paydesk accepts may hold U+0000. PostgreSQL's `text` cannot store it (SQLSTATE 22021,
 * which would surface as a 500), SQLite stores it but C-string tools cut the value there, and no
 * name, reference, note or search has a use for it. Checked once for every route, on the path
 * parameters, the query and the parsed body (keys too), before schema validation, and answered
 * like any other bad field: 400 INVALID_ARGUMENT naming where it was.
 */
const NUL = '\u0000';

function findNul(value: unknown, path: string, depth: number): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  // The JSON parser already refuses nesting past 64 (body-parsers.ts); this bound only keeps the walk finite.
  if (value === null || typeof value !== 'object' || depth > 80) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return path ? `${path} (a key)` : 'a field name';
    const hit = findNul(v, at, depth + 1);
    if (hit) return hit;
  }
  return null;
}

export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    const at = findNul(req.params, '', 0) ?? findNul(req.query, '', 0) ?? findNul(req.body, '', 0);
    if (at !== null) throw invalid(at, 'must not contain a NUL character (U+0000)');
    done();
  });
}
