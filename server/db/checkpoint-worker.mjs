// The WAL checkpointer (a worker thread, server/db/checkpointer.ts): its own connection on the
// server's SQLite file copies the WAL into the database file every `intervalMs`, so the server's
// connection never does it inside a commit (a checkpoint of a busy WAL took 20 to 290 ms on a
// 700 MB file, issue 18: the commit that crossed wal_autocheckpoint held the event loop that long).
// PASSIVE: never waits for, nor blocks, the writer or a reader; frames a reader still needs are
// left for the next round. Plain JavaScript (no TypeScript loader needed from source or bundle).
import { parentPort, workerData } from 'node:worker_threads';
import { clearInterval, setInterval } from 'node:timers';
import SQLite from 'better-sqlite3';

const { file, intervalMs } = workerData;
const db = new SQLite(file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('wal_autocheckpoint = 0'); // this connection never writes; only the explicit call below checkpoints
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let rounds = 0;
let frames = 0;
const tick = () => {
  try {
    const r = checkpoint.get();
    rounds++;
    frames += r.checkpointed > 0 ? r.checkpointed : 0;
  } catch (err) {
    parentPort.postMessage({ t: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
const timer = setInterval(tick, intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') {
    clearInterval(timer);
    tick(); // a last round, then the server's own close checkpoints what is left
    db.close();
    parentPort.postMessage({ t: 'stopped', rounds, frames });
  }
});
parentPort.postMessage({ t: 'ready' });
