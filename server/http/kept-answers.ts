import type { FastifyReply } from 'fastify';
import type { Db } from '../db/database';
import { readStamp, type ReadStamp } from '../db/read-stamp';
import type { Clock } from '../lib/clock';

/**
 * Serialised answers of the polled reads, kept while nothing may have changed them (
 * merchants poll `GET /api/v1/sessions/:reference`, payer pages the quote; reading the rows and
 * serialising the answer were half of what such a request cost). SQLite only, where this process
 * sees every write: an answer is served again only while
 * - no other connection has committed (`PRAGMA data_version`: the operator CLI, a second process,
 *   another handle on the file), and
 * - this process has run no write statement at all (the read stamp's `writes`: every INSERT, UPDATE,
 *   DELETE and BEGIN IMMEDIATE, through Kysely, the precompiled statements and the group commit,
 *   counted before it runs; the sweeper, the dispatcher and every request write through them),
 *   both read before the rows were, so an answer is never older than its stamp;
 * - it is not due to change by the clock: an answer about an `open` session whose expires_at has
 *   passed is computed again (the lookup and the quote expire it);
 * - it is asked for by the same owner (merchant) and built for the same base URL (checkout_url).
 * Only successful answers are kept. On PostgreSQL other instances write without this process
 * seeing a counter (server/db/read-stamp.ts gives no stamp there): an answer built from one row
 * read with its version (server/db/row-versions.ts) is kept by that version instead, and served
 * again after asking the row's version now (`rowVersion`: one short statement) and finding it
 * unchanged; any other read is not kept there. One per composed Deps (server/compose.ts), never module state.
 */
export interface KeptAnswerMemory {
  answers: Map<string, KeptAnswer>;
  /** Sum of the kept bodies' lengths, held under ANSWER_CHARS_MAX. */
  chars: number;
}

interface KeptAnswer {
  dataVersion: number;
  writes: number;
  /** The row's version when kept by it (PostgreSQL), else undefined. */
  version: string | undefined;
  owner: string;
  baseUrl: string;
  /** An open session's expires_at (ms), before which alone the answer is served; Infinity otherwise. */
  servedUntil: number;
  body: string;
}

export const createKeptAnswerMemory = (): KeptAnswerMemory => ({ answers: new Map(), chars: 0 });

/** At most this many answers (a session's is ~0.5 KB; with 16 KB of metadata ~17 KB)… */
const ANSWERS_MAX = 4096;
/** …and this many characters of bodies in all (~4 MB), the oldest dropped first. */
const ANSWER_CHARS_MAX = 2 * 1024 * 1024;

/** What an answer is stamped with: read before its rows are. */
type AnswerStamp = ReadStamp & { version?: string };

/** A row version stands for the stamp where there is none: the counters are left out of the comparison. */
const byVersion = (version: string): AnswerStamp => ({ dataVersion: -1, writes: -1, version });

/** The kept body under `key`, when it is still what computing the answer now would give. */
function keptAnswer(memory: KeptAnswerMemory, stamp: AnswerStamp, key: string, owner: string, baseUrl: string, clock: Clock): string | undefined {
  const kept = memory.answers.get(key);
  if (kept === undefined || kept.writes !== stamp.writes || kept.dataVersion !== stamp.dataVersion || kept.version !== stamp.version) return undefined;
  if (kept.owner !== owner || kept.baseUrl !== baseUrl) return undefined;
  // The readers' `expires_at <= now` on ISO strings, as times (a kept expires_at is canonical ISO, see keepAnswer).
  if (kept.servedUntil !== Infinity && kept.servedUntil <= clock.now().getTime()) return undefined;
  return kept.body;
}

/** Keeps `body` under `key`; `status` and `expiresAt` are the session's, as the answer states them. */
export function keepAnswer(
  memory: KeptAnswerMemory,
  stamp: AnswerStamp,
  key: string,
  answer: { owner: string; baseUrl: string; status: string; expiresAt: string; body: string },
): void {
  if (answer.body.length > ANSWER_CHARS_MAX / 64) return;
  let servedUntil = Infinity;
  if (answer.status === 'open') {
    servedUntil = Date.parse(answer.expiresAt);
    // Compared as a time on later hits: only an expires_at whose time writes back to the same text.
    if (!Number.isFinite(servedUntil) || new Date(servedUntil).toISOString() !== answer.expiresAt) return;
  }
  const { answers } = memory;
  const old = answers.get(key);
  if (old !== undefined) {
    answers.delete(key);
    memory.chars -= old.body.length;
  }
  while (answers.size > 0 && (answers.size >= ANSWERS_MAX || memory.chars + answer.body.length > ANSWER_CHARS_MAX)) {
    const [oldestKey, oldest] = answers.entries().next().value as [string, KeptAnswer];
    answers.delete(oldestKey);
    memory.chars -= oldest.body.length;
  }
  answers.set(key, { dataVersion: stamp.dataVersion, writes: stamp.writes, version: stamp.version, owner: answer.owner, baseUrl: answer.baseUrl, servedUntil, body: answer.body });
  memory.chars += answer.body.length;
}

/** A body the route's serializer already wrote (reply.serialize), sent with the content type Fastify gives JSON. */
const sendSerialised = (reply: FastifyReply, body: string): FastifyReply => reply.type('application/json; charset=utf-8').send(body);

/** A polled read whose answer may be kept: its key, and whom and which base URL it was built for. */
interface KeptRead {
  key: string;
  /** The owner the answer belongs to ('' when anyone may read it: the payer's quote). */
  owner: string;
  /** The base URL the answer names (checkout_url), '' when it names none. */
  baseUrl: string;
  /** PRAGMA data_version when this request has just read it (the API-key check: req.dataVersion). */
  dataVersion?: number;
  /** False when this answer is not to be kept (the merchant route: a session of the other mode than the key's). */
  keepable?: boolean;
  /**
   * The version of the one row the answer is built from now, where there is no read stamp
   * (server/db/row-versions.ts; undefined there too for a row that is not found).
   */
  rowVersion?: () => Promise<string | undefined>;
}

/**
 * The one way a route serves a kept answer: the kept body when it is still current, else
 * `compute()`'s answer, serialised by the route's own serializer and kept for the next poll.
 * The read stamp is read before `compute` reads its rows, so a kept answer is never older than its
 * stamp. Where there is none, an answer `compute` gives with the `version` of the row it read (in
 * the same statement) is kept by that version, and served again only while `read.rowVersion()`
 * still gives it (asked only when such an answer is kept). Otherwise (a derived handle, a read
 * with no row version on PostgreSQL) the answer is computed and returned as usual.
 */
export async function keptOrComputed<T extends { status: string; expires_at: string }>(
  reply: FastifyReply,
  deps: { db: Db; clock: Clock; keptAnswers: KeptAnswerMemory },
  read: KeptRead,
  compute: () => Promise<{ answer: T; version?: string }>,
): Promise<T | FastifyReply> {
  const keepable = read.keepable !== false;
  let stamp: AnswerStamp | undefined = keepable ? readStamp(deps.db, read.dataVersion) : undefined;
  if (stamp === undefined && keepable && read.rowVersion && deps.keptAnswers.answers.get(read.key)?.version !== undefined) {
    const version = await read.rowVersion();
    if (version !== undefined) stamp = byVersion(version);
  }
  if (stamp !== undefined) {
    const kept = keptAnswer(deps.keptAnswers, stamp, read.key, read.owner, read.baseUrl, deps.clock);
    if (kept !== undefined) return sendSerialised(reply, kept);
  }
  const { answer, version } = await compute();
  // Kept by the version of the row the answer was built from (read with it), not one asked before.
  if (stamp === undefined || stamp.version !== undefined) stamp = keepable && version !== undefined ? byVersion(version) : undefined;
  if (stamp === undefined) return answer;
  const body = String(reply.serialize(answer)); // the route's serializer, as Fastify would use for the object
  keepAnswer(deps.keptAnswers, stamp, read.key, { owner: read.owner, baseUrl: read.baseUrl, status: answer.status, expiresAt: answer.expires_at, body });
  return sendSerialised(reply, body);
}
