import { sqliteDataVersion, sqliteWriteCount, type Db } from '../../db/database';
import type { Clock } from '../../lib/clock';

/**
 * The serialised answer of `GET /api/v1/sessions/:reference`, kept per session while nothing
 * may have changed it (issue 16: merchants and payer pages poll sessions; the lookup's row read
 * and serialisation were half of what such a request cost). SQLite only, where one process
 * owns the file's writes or sees everyone else's: an answer is served again only while
 * - no other connection has committed (`PRAGMA data_version`: the operator CLI, a second process,
 *   another handle on the file), and
 * - this process has run no write statement at all (sqliteWriteCount: every INSERT, UPDATE,
 *   DELETE and BEGIN IMMEDIATE, through Kysely, the precompiled statements and the group commit,
 *   counted before it runs; the sweeper, the dispatcher and every request write through them),
 * both read before the row was, so an answer is never older than its stamp;
 * - it is not due to expire by the clock: an `open` answer whose expires_at has passed is
 *   looked up again (getMerchantSession expires it);
 * - the base URL its checkout_url was built from is still the one in use.
 * On PostgreSQL other instances write without this process seeing a counter, so nothing is
 * kept (sqliteDataVersion is undefined there). One per composed Deps (server/compose.ts).
 */
export interface SessionAnswerMemory {
  answers: Map<string, SessionAnswer>;
  /** Sum of the kept bodies' lengths, held under ANSWER_BYTES_MAX. */
  chars: number;
}

interface SessionAnswer {
  dataVersion: number;
  writes: number;
  merchantId: string;
  baseUrl: string;
  /** An open session's expires_at (ms), before which alone it is served; Infinity for every other status. */
  servedUntil: number;
  body: string;
}

export const createSessionAnswerMemory = (): SessionAnswerMemory => ({ answers: new Map(), chars: 0 });

/** At most this many answers (a body is ~0.5 KB; with 16 KB of metadata ~17 KB)… */
const ANSWERS_MAX = 4096;
/** …and this many characters of bodies in all (~4 MB), the oldest dropped first. */
const ANSWER_CHARS_MAX = 2 * 1024 * 1024;

/** What an answer is stamped with: read before the session row is. Undefined: do not cache. */
export interface AnswerStamp {
  dataVersion: number;
  writes: number;
}

/** The stamp now; `dataVersion` when this request has just read it (the API-key check). */
export function answerStamp(db: Db, dataVersion: number | undefined): AnswerStamp | undefined {
  const writes = sqliteWriteCount(db);
  if (writes === undefined) return undefined;
  const version = dataVersion ?? sqliteDataVersion(db);
  return version === undefined ? undefined : { dataVersion: version, writes };
}

/** The kept body of this merchant's session, when it is still what a lookup would answer now. */
export function keptAnswer(memory: SessionAnswerMemory, stamp: AnswerStamp, merchantId: string, id: string, baseUrl: string, clock: Clock): string | undefined {
  const kept = memory.answers.get(id);
  if (kept === undefined || kept.writes !== stamp.writes || kept.dataVersion !== stamp.dataVersion) return undefined;
  if (kept.merchantId !== merchantId || kept.baseUrl !== baseUrl) return undefined;
  // getMerchantSession's `expires_at <= now` on ISO strings, as times (a kept expires_at is canonical ISO, see keepAnswer).
  if (kept.servedUntil !== Infinity && kept.servedUntil <= clock.now().getTime()) return undefined;
  return kept.body;
}

export function keepAnswer(
  memory: SessionAnswerMemory,
  stamp: AnswerStamp,
  id: string,
  answer: { merchantId: string; baseUrl: string; status: string; expiresAt: string; body: string },
): void {
  if (answer.body.length > ANSWER_CHARS_MAX / 64) return;
  let servedUntil = Infinity;
  if (answer.status === 'open') {
    servedUntil = Date.parse(answer.expiresAt);
    // Compared as a time on later hits: only an expires_at whose time writes back to the same text.
    if (!Number.isFinite(servedUntil) || new Date(servedUntil).toISOString() !== answer.expiresAt) return;
  }
  const { answers } = memory;
  const old = answers.get(id);
  if (old !== undefined) {
    answers.delete(id);
    memory.chars -= old.body.length;
  }
  while (answers.size > 0 && (answers.size >= ANSWERS_MAX || memory.chars + answer.body.length > ANSWER_CHARS_MAX)) {
    const [oldestId, oldest] = answers.entries().next().value as [string, SessionAnswer];
    answers.delete(oldestId);
    memory.chars -= oldest.body.length;
  }
  answers.set(id, {
    dataVersion: stamp.dataVersion,
    writes: stamp.writes,
    merchantId: answer.merchantId,
    baseUrl: answer.baseUrl,
    servedUntil,
    body: answer.body,
  });
  memory.chars += answer.body.length;
}
