import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import { z } from 'zod';
import type { Database } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { AppError, formatPath, notFound } from '../../lib/errors';
import { uuidV7s } from '../../lib/ids';
import { coerceToSchema } from '../../http/form-body';
import { collectedMinor, reallocateInvoice } from '../../domain/invoice-allocation';
import { summaryOnLinesChanged } from '../../domain/invoice-summary';
import { invoiceLines } from './invoices.repository';
import { activeRevenueLines, existingLines, upsertLines } from './invoice-line-statements';
import { idempotency, type IdempotencyKey, type KeyedAnswer } from '../idempotency';
import type { LineError } from '../../../shared/schemas/common';
import { InvoiceLineInput, type InvoiceLineIngestResponse, type InvoiceLineListResponse } from '../../../shared/schemas/merchant';

const InvoiceLineArray = z.array(InvoiceLineInput);
type InvoiceLine = z.infer<typeof InvoiceLineInput>;

export interface IngestInput {
  merchantId: string;
  /** The key's mode: an invoice reference in test and the same one in live are different invoices. */
  mode: 'test' | 'live';
  invoiceRef: string;
  currency: string;
  lines: unknown[];
  fromForm: boolean;
}

/**
 * `POST /api/v1/invoice-lines`: one transaction (SERIALIZABLE on PostgreSQL) that reserves the
 * Idempotency-Key when given, records the lines (ingestInvoiceLines) and stores the answer with
 * the key; 207 when some lines were refused, else 200.
 */
export async function recordInvoiceLines(deps: Pick<AppDeps, 'db' | 'clock' | 'ids' | 'config'>, input: IngestInput, key: IdempotencyKey | undefined): Promise<KeyedAnswer<InvoiceLineIngestResponse>> {
  return deps.db.transaction().execute(async (trx) => {
    if (key) {
      const reserved = await idempotency.reserve(trx, deps, key);
      if (reserved.kind === 'replay') return idempotency.replayed<InvoiceLineIngestResponse>(reserved);
    }
    const body = await ingestInvoiceLines(trx, deps, input);
    const status = body.errors.length ? 207 : 200;
    if (key) await idempotency.complete(trx, key, status, body);
    return { status, body, replayed: false };
  });
}

/**
 * Records invoice lines. Each line must name an active, synced revenue line and carry a
 * positive integer amount; bad lines are reported in `errors` (207) and the rest are kept.
 * A line whose code the invoice already has replaces it (amount and name), so re-sending an
 * invoice is safe. Paid money freezes what it paid (docs/merchant-api.md): a fully paid
 * invoice refuses the whole request (409 INVOICE_ALREADY_PAID); on a partly paid one only the
 * remitted lines are frozen (re-sent unchanged they are accepted, changed they are a per-line
 * INVOICE_ALREADY_PAID error) and the others may still change or be added. The collected money
 * is then re-allocated, so a line lowered to what is already collected becomes remitted.
 */
async function ingestInvoiceLines(
  trx: Transaction<Database>,
  { clock }: Pick<AppDeps, 'clock' | 'ids'>,
  input: IngestInput,
): Promise<InvoiceLineIngestResponse> {
  const nowMs = clock.now().getTime();
  const now = new Date(nowMs).toISOString();
  const owner = { merchantId: input.merchantId, mode: input.mode, invoiceRef: input.invoiceRef };
  const existing = await existingLines(trx, owner);
  if (existing.length > 0 && existing.every((l) => l.remitted === 1)) {
    throw new AppError('INVOICE_ALREADY_PAID', `invoice ${input.invoiceRef} is fully paid; its lines cannot change`);
  }
  const remitted = new Map(existing.filter((l) => l.remitted === 1).map((l) => [l.code, l]));
  const other = existing.find((l) => l.currency !== input.currency);
  if (other) {
    throw new AppError('INVOICE_CURRENCY_MISMATCH', `currency: invoice ${input.invoiceRef} already holds lines in ${other.currency}`);
  }
  const candidates = input.fromForm ? input.lines.map((raw) => coerceToSchema(InvoiceLineInput, raw)) : input.lines;
  // One parse of the whole array; only a request with a bad line parses line by line, to name each one's first problem.
  const whole = InvoiceLineArray.safeParse(candidates);
  const valid = whole.success ? whole.data : undefined;
  const catalogue = new Map((await activeRevenueLines(trx, { merchantId: input.merchantId, mode: input.mode })).map((r) => [r.code, r.name]));
  // [id, code, name, amount_minor] per line to write (invoice-line-statements.ts `upsertLines`).
  const rows: Array<[string, string, string, number]> = [];

  const errors: LineError[] = [];
  const seen = new Set<string>();
  let ingested = 0;
  let billed = 0;
  for (let index = 0; index < candidates.length; index++) {
    let line: InvoiceLine;
    if (valid) line = valid[index]!;
    else {
      const parsed = InvoiceLineInput.safeParse(candidates[index]);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = issue?.path ?? [];
        const field = formatPath(['lines', index, ...path]);
        const message = issue?.message ?? 'is invalid';
        const code = path[0] === 'amount_minor' && message !== 'is required' ? 'INVOICE_LINE_AMOUNT_INVALID' : 'INVALID_ARGUMENT';
        errors.push({ index, code, field, message: `${field}: ${message}` });
        continue;
      }
      line = parsed.data;
    }
    const field = `lines[${index}].code`;
    if (seen.has(line.code)) {
      errors.push({ index, code: 'DUPLICATE_LINE', field, message: `${field}: code ${line.code} appears earlier in this request` });
      continue;
    }
    seen.add(line.code);
    const catalogueName = catalogue.get(line.code);
    if (catalogueName === undefined) {
      errors.push({
        index,
        code: 'REVENUE_LINE_UNKNOWN',
        field,
        message: `${field}: ${line.code} is not an active revenue line; sync it first with POST /api/v1/revenue-lines`,
      });
      continue;
    }
    const paid = remitted.get(line.code);
    if (paid) {
      if (paid.amount_minor !== line.amount_minor || (line.name !== undefined && line.name !== paid.name)) {
        errors.push({ index, code: 'INVOICE_ALREADY_PAID', field, message: `${field}: ${line.code} is already paid (remitted); a paid line cannot change` });
        continue;
      }
      ingested++; // re-sent unchanged: accepted, nothing to write
      billed += line.amount_minor;
      continue;
    }
    rows.push(['', line.code, line.name ?? catalogueName, line.amount_minor]); // its id below, all in one draw
    ingested++;
    billed += line.amount_minor;
  }
  // One statement for every accepted line, whatever their number.
  if (rows.length > 0) {
    const ids = uuidV7s(rows.length, nowMs);
    rows.forEach((r, i) => (r[0] = ids[i]!));
    await upsertLines(trx, { ...owner, currency: input.currency, now, rows: JSON.stringify(rows) });
  }
  // Every line is at least 1, so lines can only become remitted when the invoice has collected money:
  // a new invoice (the common case) skips reading its lines back. All its lines are in input.currency.
  const collected = await collectedMinor(trx, input.merchantId, input.mode, input.invoiceRef, input.currency);
  const newlyRemitted = collected > 0 && (await reallocateInvoice(trx, input.merchantId, input.mode, input.invoiceRef, now, collected));
  // The back office's invoice summary, in this transaction, once per request (domain/invoice-summary.ts).
  if (rows.length > 0 || newlyRemitted) await summaryOnLinesChanged(trx, input.merchantId, input.invoiceRef);
  return { object: 'invoice.line_items', invoice_ref: input.invoiceRef, ingested, billed_minor: billed, errors };
}

export async function listInvoiceLines(
  db: Db,
  owner: { merchantId: string; mode: 'test' | 'live' },
  invoiceRef: string,
): Promise<InvoiceLineListResponse> {
  const rows = await invoiceLines(db, { merchantId: owner.merchantId, mode: owner.mode, invoiceRef });
  if (rows.length === 0) throw notFound(`invoice ${invoiceRef}`);
  return {
    object: 'invoice.line_items',
    invoice_ref: invoiceRef,
    lines: rows,
    total_minor: rows.reduce((sum, r) => sum + r.amount_minor, 0),
  };
}
