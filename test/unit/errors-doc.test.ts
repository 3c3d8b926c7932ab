import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, errorBody, formatPath } from '../../server/lib/errors';
import { renderErrorTable } from '../helpers/errors-table';

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

  it('prints the table exactly as `npx tsx test/helpers/errors-table.ts` renders it', () => {
    expect(doc).toContain(`<!-- error-table:start -->\n${renderErrorTable()}\n<!-- error-table:end -->`);
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
    // CONTRACT §3-4 fixes these.
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
