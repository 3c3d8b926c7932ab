import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, errorBody, formatPath } from '../../server/lib/errors';
import { renderErrorTable } from '../support/errors-table';

const doc = readFileSync(resolve(__dirname, '../../docs/errors.md'), 'utf8');

/** The rows of the table between the markers, parsed back into code → { status, meaning }. */
function documentedCodes(): Map<string, { status: number; meaning: string }> {
  const start = doc.indexOf('<!-- error-table:start -->');
  const end = doc.indexOf('<!-- error-table:end -->');
  expect(start, 'docs/errors.md has the table markers').toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  const rows = doc
    .slice(start, end)
    .split('\n')
    .filter((l) => /^\| `/.test(l));
  return new Map(
    rows.map((row) => {
      const match = /^\| `([A-Z_]+)` \| (\d{3}) \| (.*) \|$/.exec(row);
      if (!match) throw new Error(`unparseable row in docs/errors.md: ${row}`);
      return [match[1]!, { status: Number(match[2]), meaning: match[3]!.replace(/\\\|/g, '|') }];
    }),
  );
}

describe('docs/errors.md', () => {
  it('lists exactly the codes of ERROR_CODES, each with its HTTP status and meaning', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(documented.get(code), code).toEqual({ status: entry.status, meaning: entry.meaning });
    }
  });

  it('prints the table exactly as `npx tsx test/support/errors-table.ts` renders it', () => {
    expect(doc).toContain(`<!-- error-table:start -->\n${renderErrorTable()}\n<!-- error-table:end -->`);
  });
});

/** Server sources without comments; lib/errors.ts without its ERROR_CODES table (listing a code is not emitting it). */
function serverSources(): Map<string, string> {
  const root = resolve(__dirname, '../../server');
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        let text = readFileSync(path, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
        if (path.endsWith(join('lib', 'errors.ts'))) text = text.replace(/export const ERROR_CODES = \{[\s\S]*?\n\} as const/, '');
        out.set(path, text);
      }
    }
  };
  walk(root);
  return out;
}

/** Every `new AppError(…)` in the sources: its code and whether it sets retryAfterSeconds. */
function appErrorConstructions(sources: Map<string, string>): Array<{ file: string; code: string; retryAfter: boolean }> {
  const found: Array<{ file: string; code: string; retryAfter: boolean }> = [];
  for (const [file, text] of sources) {
    for (let at = text.indexOf('new AppError('); at >= 0; at = text.indexOf('new AppError(', at + 1)) {
      let depth = 0;
      let end = at + 'new AppError'.length;
      let quote: string | null = null;
      for (; end < text.length; end++) {
        const c = text[end]!;
        if (quote) {
          if (c === '\\') end++;
          else if (c === quote) quote = null;
        } else if (c === "'" || c === '"' || c === '`') quote = c;
        else if (c === '(') depth++;
        else if (c === ')' && --depth === 0) break;
      }
      const call = text.slice(at, end + 1);
      const code = /^new AppError\(\s*'([A-Z_]+)'/.exec(call)?.[1];
      if (code) found.push({ file, code, retryAfter: /retryAfterSeconds/.test(call) });
    }
  }
  return found;
}

/** Backticked codes in the docs section that starts at `heading` (up to the next heading). */
function codesInSection(heading: string): Set<string> {
  const at = doc.indexOf(heading);
  expect(at, `docs/errors.md has "${heading}"`).toBeGreaterThanOrEqual(0);
  const rest = doc.slice(at + heading.length);
  const next = rest.search(/\n#{1,3} /);
  return new Set([...(next < 0 ? rest : rest.slice(0, next)).matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!));
}

describe('docs/errors.md tells the truth about the server', () => {
  const sources = serverSources();
  const constructions = appErrorConstructions(sources);

  it('every listed code is answered somewhere in server/, except those documented as reserved by the specification', () => {
    const reserved = codesInSection('## Codes reserved by the specification');
    const emitted = new Set(Object.keys(ERROR_CODES).filter((code) => [...sources.values()].some((text) => text.includes(`'${code}'`))));
    for (const code of Object.keys(ERROR_CODES)) {
      if (reserved.has(code)) expect(emitted.has(code), `${code} is documented as reserved but the server answers it`).toBe(false);
      else expect(emitted.has(code), `${code} is listed but nothing in server/ answers it`).toBe(true);
    }
    for (const code of reserved) expect(ERROR_CODES, `reserved ${code}`).toHaveProperty(code);
  });

  it('names exactly the codes whose envelope carries retry_after_seconds, and those always carry it', () => {
    const bullet = /^- `retry_after_seconds`[\s\S]*?(?=\n- |\n\n)/m.exec(doc)?.[0];
    expect(bullet, 'docs/errors.md has the retry_after_seconds bullet').toBeDefined();
    const stated = new Set([...bullet!.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!));
    expect(constructions.length).toBeGreaterThan(20);
    const withRetry = new Set(constructions.filter((c) => c.retryAfter).map((c) => c.code));
    expect([...stated].sort()).toEqual([...withRetry].sort());
    for (const c of constructions) {
      if (stated.has(c.code)) expect(c.retryAfter, `${c.code} in ${c.file} without retryAfterSeconds`).toBe(true);
    }
  });
});

describe('ERROR_CODES', () => {
  it('covers every code of the API specification, with the status the specification gives', () => {
    const spec: Record<string, number | null> = {
      UNAUTHORIZED: 401,
      RATE_LIMITED: 429,
      IDEMPOTENCY_KEY_REUSED: 422,
      SESSION_NOT_PAYABLE: 409,
      PAYMENT_AMOUNT_MISMATCH: 409,
      IDEMPOTENCY_KEY_IN_FLIGHT: null,
      IDEMPOTENCY_IN_PROGRESS: null,
      INVALID_ARGUMENT: null,
      INVOICE_LINE_AMOUNT_INVALID: null,
      MERCHANT_ID_REQUIRED: null,
      PAYMENT_ATTEMPT_PENDING: null,
      PROVIDER_PAYMENT_REJECTED: null,
      PROVIDER_RAIL_UNAVAILABLE: null,
      PROVIDER_RAIL_UNSUPPORTED: null,
      RAIL_NOT_ALLOWED: null,
    };
    for (const [code, status] of Object.entries(spec)) {
      expect(ERROR_CODES, code).toHaveProperty(code);
      if (status !== null) expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status, code).toBe(status);
    }
    // The back-office and public APIs fix these.
    expect(ERROR_CODES.INVALID_ARGUMENT.status).toBe(400);
    expect(ERROR_CODES.NOT_FOUND.status).toBe(404);
    expect(ERROR_CODES.FORBIDDEN.status).toBe(403);
  });

  it('every status is a client or server error status', () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      expect(status >= 400 && status <= 599, code).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(10);
    }
  });

  it('AppError takes its status from the table and the envelope carries retry_after_seconds only when set', () => {
    const err = new AppError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 7 });
    expect(err.status).toBe(429);
    expect(errorBody(err.code, err.message, err.retryAfterSeconds)).toEqual({ error: { code: 'RATE_LIMITED', message: 'slow down', retry_after_seconds: 7 } });
    expect(errorBody('NOT_FOUND', 'gone')).toEqual({ error: { code: 'NOT_FOUND', message: 'gone' } });
  });

  it('formatPath writes paths the way clients write them', () => {
    expect(formatPath(['lines', 2, 'amount_minor'])).toBe('lines[2].amount_minor');
    expect(formatPath(['customer', 'email'])).toBe('customer.email');
    expect(formatPath([])).toBe('');
  });
});
