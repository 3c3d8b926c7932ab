/** The database the report worker opens its own connection on (workerData). */
export type ReportSource = { file: string; url?: undefined } | { url: string; file?: undefined };

/** Messages between the report runner (main thread) and the report worker. */
export type ToWorker =
  | { t: 'start'; id: number; job: string; args: unknown }
  /** One more chunk may be sent. */
  | { t: 'more'; id: number }
  /** The client went away: stop. */
  | { t: 'cancel'; id: number };

export type ToRunner =
  | { t: 'ready' }
  | { t: 'chunk'; id: number; data: string }
  /** The job stopped: at its end, or (cancelled) at a cancel. */
  | { t: 'end'; id: number; cancelled?: boolean }
  /** `unavailable`: the database connection failed (server/db/connection-errors.ts): a 503, as in-process. */
  | { t: 'error'; id: number; code: string; message: string; status?: number; unavailable?: boolean };
