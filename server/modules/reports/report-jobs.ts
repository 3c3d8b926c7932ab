import type { Db } from '../../db/database';
import type { ExceptionKind, ExceptionStatus } from '../../../shared/schemas/finance-exceptions';
import { exceptionsCsv, listExceptionItems, paymentsCsvBatches, type PaymentsExport, listFinanceExceptions } from '../finance';
import { auditCsv, type AuditFilter } from '../audit';

/**
 * The long reads of the back office (exports and reports), each a generator of text chunks over
 * a database handle. They run in the report worker (report-runner.ts; its own connection on
 * SQLite or PostgreSQL) and in-process where it cannot: the same code either way, so the output
 * is the same bytes. Arguments are plain
 * data, already validated by the route (they cross a thread boundary).
 */
export interface ReportJobs {
  /** The payments CSV of a checked range, EXPORT_BATCH sessions per chunk (finance-export.service.ts). */
  payments: PaymentsExport & { batch?: number };
  /** The finance exceptions as CSV. */
  exceptionsCsv: { merchantId: string; kind?: ExceptionKind | undefined };
  /** One page of the finance exceptions list, as its JSON text. */
  exceptionsList: { merchantId: string; kind?: ExceptionKind | undefined; limit: number; offset: number };
  /** One page of the exception work items, as its JSON text. */
  exceptionItems: { merchantId: string; status: ExceptionStatus | 'all'; kind?: ExceptionKind | undefined; invoiceRef?: string | undefined; limit: number; offset: number };
  /** The filtered audit trail as CSV. */
  auditCsv: AuditFilter;
}

export type ReportJob = keyof ReportJobs;

/** Chunks of at most this many characters: a report built whole is still sent (and paced) piece by piece. */
const SLICE = 256 * 1024;

/**
 * A whole text in pieces of at most `size` characters, never cut between the two halves of a
 * surrogate pair (each piece is encoded to UTF-8 on its own: a lone half would be U+FFFD).
 */
export async function* slices(text: Promise<string>, size = SLICE): AsyncGenerator<string> {
  const all = await text;
  if (all.length === 0) yield '';
  for (let i = 0; i < all.length; ) {
    let end = Math.min(i + size, all.length);
    const last = all.charCodeAt(end - 1);
    if (end < all.length && end - 1 > i && last >= 0xd800 && last <= 0xdbff) end--;
    yield all.slice(i, end);
    i = end;
  }
}

export const reportJobs: { [K in ReportJob]: (db: Db, args: ReportJobs[K]) => AsyncGenerator<string> } = {
  payments: (db, args) => paymentsCsvBatches(db, args, args.batch),
  exceptionsCsv: (db, args) => slices(exceptionsCsv(db, args.merchantId, args.kind)),
  exceptionsList: (db, args) => slices(listFinanceExceptions(db, args.merchantId, args).then((list) => JSON.stringify(list))),
  exceptionItems: (db, args) => slices(listExceptionItems(db, args.merchantId, args).then((list) => JSON.stringify(list))),
  auditCsv: (db, args) => slices(auditCsv(db, args)),
};

export function isReportJob(name: unknown): name is ReportJob {
  return typeof name === 'string' && Object.hasOwn(reportJobs, name);
}
