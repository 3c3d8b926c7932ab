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
/**
 * Nor may it hold a lone UTF-16 surrogate (`"\ud800"` in JSON): no database stores one, so
 * `SUR\ud800` would be written as something else (U+FFFD) with no error. Refused the same way.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
type Problem = 'nul' | 'surrogate';
const problemOf = (s: string): Problem | null => (s.includes(NUL) ? 'nul' : LONE_SURROGATE.test(s) ? 'surrogate' : null);
const MESSAGES: Record<Problem, string> = {
  nul: 'must not contain a NUL character (U+0000)',
  surrogate: 'must be valid Unicode text (a lone surrogate such as \\ud800 cannot be stored)',
};

function findNul(value: unknown, path: string, depth: number): { at: string; problem: Problem } | null {
  if (typeof value === 'string') {
    const problem = problemOf(value);
    return problem ? { at: path, problem } : null;
  }
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
    const problem = problemOf(key);
    if (problem) return { at: path ? `${path} (a key)` : 'a field name', problem };
    const hit = findNul(v, at, depth + 1);
    if (hit) return hit;
  }
  return null;
}

export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    const hit = findNul(req.params, '', 0) ?? findNul(req.query, '', 0) ?? findNul(req.body, '', 0);
    if (hit !== null) throw invalid(hit.at, MESSAGES[hit.problem]);
    done();
  });
}
