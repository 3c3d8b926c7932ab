/**
 * The reports module's public face, for the app: the report runner of the Deps (the back office's
 * long reads, off the event loop). It runs the other modules' reads (report-jobs.ts), so no module
 * imports it: routes reach it through `deps.reports`, and send its chunks with
 * server/http/report-stream.ts.
 */
export { createReportRunner, type ReportRunner } from './report-runner';
