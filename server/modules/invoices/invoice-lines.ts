import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { Database, InvoiceLinesTable } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { AppError, formatPath, notFound } from '../../lib/errors';
import { uuidV7 } from '../../lib/ids';
import { coerceToSchema } from '../../http/form-body';
import { reallocateInvoice } from '../../domain/invoice-allocation';
import { summaryOnLinesChanged } from '../../domain/invoice-summary';
import { invoiceLines } from './invoices.repository';
import type { LineError } from '../../../shared/schemas/common';
import { InvoiceLineInput, type InvoiceLineIngestResponse, type InvoiceLineListResponse } from '../../../shared/schemas/merchant';

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
 * Records invoice lines. Each line must name an active, synced revenue line and carry a
 * positive integer amount; bad lines are reported in `errors` (207) and the rest are kept.
 * A line whose code the invoice already has replaces it (amount and name), so re-sending an
 * invoice is safe. Paid money freezes what it paid (docs/merchant-api.md): a fully paid
 * invoice refuses the whole request (409 INVOICE_ALREADY_PAID); on a partly paid one only the
 * remitted lines are frozen (re-sent unchanged they are accepted, changed they are a per-line
 * INVOICE_ALREADY_PAID error) and the others may still change or be added. The collected money
 * is then re-allocated, so a line lowered to what is already collected becomes remitted.
 */
export async function ingestInvoiceLines(
  trx: Transaction<Database>,
  { clock }: Pick<AppDeps, 'clock' | 'ids'>,
  input: IngestInput,
): Promise<InvoiceLineIngestResponse> {
  const nowMs = clock.now().getTime();
  const now = new Date(nowMs).toISOString();
  const existing = await trx
    .selectFrom('invoice_lines')
    .select(['code', 'name', 'amount_minor', 'currency', 'remitted'])
    .where('merchant_id', '=', input.merchantId)
    .where('mode', '=', input.mode)
    .where('invoice_ref', '=', input.invoiceRef)
    .execute();
  if (existing.length > 0 && existing.every((l) => l.remitted === 1)) {
    throw new AppError('INVOICE_ALREADY_PAID', `invoice ${input.invoiceRef} is fully paid; its lines cannot change`);
  }
  const remitted = new Map(existing.filter((l) => l.remitted === 1).map((l) => [l.code, l]));
  const other = existing.find((l) => l.currency !== input.currency);
  if (other) {
    throw new AppError('INVOICE_CURRENCY_MISMATCH', `currency: invoice ${input.invoiceRef} already holds lines in ${other.currency}`);
  }
  const catalogue = new Map(
    (
      await trx
        .selectFrom('revenue_lines')
        .select(['code', 'name'])
        .where('merchant_id', '=', input.merchantId)
        .where('mode', '=', input.mode)
        .where('active', '=', 1)
        .execute()
    ).map((r) => [r.code, r.name]),
  );
  const rows: InvoiceLinesTable[] = [];

  const errors: LineError[] = [];
  const seen = new Set<string>();
  let ingested = 0;
  let billed = 0;
  for (const [index, raw] of input.lines.entries()) {
    const candidate = input.fromForm ? coerceToSchema(InvoiceLineInput, raw) : raw;
    const parsed = InvoiceLineInput.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path ?? [];
      const field = formatPath(['lines', index, ...path]);
      const message = issue?.message ?? 'is invalid';
      const code = path[0] === 'amount_minor' && message !== 'is required' ? 'INVOICE_LINE_AMOUNT_INVALID' : 'INVALID_ARGUMENT';
      errors.push({ index, code, field, message: `${field}: ${message}` });
      continue;
    }
    const line = parsed.data;
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
    const name = line.name ?? catalogueName;
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
    rows.push({
      id: uuidV7(nowMs),
      merchant_id: input.merchantId,
      mode: input.mode,
      invoice_ref: input.invoiceRef,
      code: line.code,
      name,
      amount_minor: line.amount_minor,
      currency: input.currency,
      remitted: 0,
      remitted_at: null,
      created_at: now,
      updated_at: now,
    });
    ingested++;
    billed += line.amount_minor;
  }
  await upsertLines(trx, rows);
  const newlyRemitted = await reallocateInvoice(trx, input.merchantId, input.mode, input.invoiceRef, now);
  // The back office's invoice summary, in this transaction (domain/invoice-summary.ts).
  if (rows.length > 0 || newlyRemitted) await summaryOnLinesChanged(trx, input.merchantId, input.invoiceRef);
  return { object: 'invoice.line_items', invoice_ref: input.invoiceRef, ingested, billed_minor: billed, errors };
}

/** Rows per statement: 12 columns each stays far below SQLite's (32,766) and PostgreSQL's (65,535) parameter limits. */
const UPSERT_CHUNK = 500;

/**
 * The request's accepted lines in one multi-row statement (per chunk) instead of one per line
 * (issue 16): new codes are inserted, codes the invoice already has (never remitted ones: those
 * were answered above) get the new name, amount and currency and keep their id.
 */
async function upsertLines(trx: Transaction<Database>, rows: InvoiceLinesTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
    await trx
      .insertInto('invoice_lines')
      .values(rows.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'mode', 'invoice_ref', 'code']).doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          amount_minor: eb.ref('excluded.amount_minor'),
          currency: eb.ref('excluded.currency'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
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
