/** The reports module as other modules see it: streaming a report, and the export jobs. */
export { createExportJobs } from './export-jobs';
export { reportStream } from './report-stream';
