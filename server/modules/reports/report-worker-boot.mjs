// Starts the report worker from the TypeScript source (tsx, vitest): a worker thread does not
// inherit the parent's TypeScript loader, so it registers tsx and then loads the entry named in
// workerData. The bundle (out/server/report-worker.mjs, scripts/build-server.mjs) needs none of this.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
