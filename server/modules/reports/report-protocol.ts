import type { ReaderSource } from '../../db/reader';

/** The database the report worker opens its own connection on (workerData; server/db/reader.ts). */
export type ReportSource = ReaderSource;

/** Messages between the report runner (main thread) and the report worker. */
export type ToWorker =
  /**
   * `slots`: the job's SLOTS byte slots of `size` bytes each, shared with the runner; the start
   * message is the credit for slot 0.
   */
  | { t: 'start'; id: number; job: string; args: unknown; slots: SharedArrayBuffer; size: number }
  /** One more chunk may be sent, encoded into `slot` (free again: its bytes were written out). */
  | { t: 'more'; id: number; slot: number }
  /** The client went away: stop. */
  | { t: 'cancel'; id: number };

export type ToRunner =
  | { t: 'ready' }
  /** `len` bytes of UTF-8 text in `slot`; the slot is the worker's again only with a `more` naming it. */
  | { t: 'chunk'; id: number; slot: number; len: number }
  /** The job stopped: at its end, or (cancelled) at a cancel. */
  | { t: 'end'; id: number; cancelled?: boolean }
  /** `unavailable`: the database connection failed (server/db/connection-errors.ts): a 503, as in-process. */
  | { t: 'error'; id: number; code: string; message: string; status?: number; unavailable?: boolean };

/**
 * Byte slots per job: one being written to the socket, one the worker fills meanwhile. A slot's
 * bytes go from the worker's encoder to the socket without a copy in the main thread's heap.
 */
export const SLOTS = 2;
/** Bytes per slot: a batch of 200 payment rows (about 50 KB) fits in one; longer text spans several. */
export const SLOT_BYTES = 64 * 1024;
