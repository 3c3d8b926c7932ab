import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// One CSPRNG call per 4 KiB instead of one per id: a call per request showed in the benchmark profile.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function takeRandomBytes(n: number): Buffer {
  if (n > POOL_SIZE) return randomBytes(n);
  if (poolOffset + n > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

/** Unbiased base62 string of `length` characters from the CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = takeRandomBytes(length * 2);
    for (const b of bytes) {
      // 248 = 62 * 4: reject the top bytes so every character is equally likely.
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Characters of a base62 millisecond timestamp: 62^8 ms is ~6,900 years from 1970. */
const TIME_CHARS = 8;

/**
 * `length` base62 characters whose first 8 are the Unix milliseconds (`now`), the rest random:
 * ids of rows written in time order then sort in that order (BASE62 is in ASCII order), so their
 * unique index and every index that leads with them take new entries at the end instead of at a
 * random page, one WAL page per commit rather than one per row (the webhook attempt
 * log). Only for ids that are not secrets: 16 random characters (95 bits) still make them unique.
 */
export function timeOrderedBase62(length: number, now = Date.now()): string {
  return base62Millis(now) + randomBase62(length - TIME_CHARS);
}

/** The 8 base62 characters of Unix milliseconds that lead a time-ordered id (they sort as the times do). */
export function base62Millis(now: number): string {
  let t = '';
  for (let i = 0, v = now; i < TIME_CHARS; i++, v = Math.floor(v / 62)) t = BASE62[v % 62]! + t;
  return t;
}

/** Steps of a capability id's time prefix: 62^7 steps of 4 ms run from 1970 to the year 2416. */
const CAPABILITY_TICK_MS = 4;
const CAPABILITY_TIME_CHARS = 7;
/** Random characters a capability keeps at least: 16 are 95 bits. */
const CAPABILITY_MIN_RANDOM = 16;

/**
 * `length` base62 characters for an id that is also a capability (a checkout session id: whoever
 * holds it reaches the hosted checkout) and whose rows are written in time order: 7 characters
 * of the time in 4 ms steps, then `length − 7` from the CSPRNG (24 characters keep 17 random,
 * 101 bits; refused below 16, 95 bits). The ids sort in time order, so the primary-key index and
 * every index that leads with the id take a turn's new entries on the same one or two leaf pages
 * instead of one random page each (at a million sessions each create dirtied a leaf
 * of three random b-trees, and every automatic checkpoint copied ~300 scattered pages). The
 * prefix tells a holder when the id was made (to 4 ms), which the session's own `created_at`
 * and `expires_at` already say; a guess still has to hit the 17 random characters.
 */
export function timeOrderedSecretBase62(length: number, now: number): string {
  if (length - CAPABILITY_TIME_CHARS < CAPABILITY_MIN_RANDOM) throw new Error(`a capability id needs ${CAPABILITY_MIN_RANDOM} random characters`);
  let t = '';
  for (let i = 0, v = Math.floor(now / CAPABILITY_TICK_MS); i < CAPABILITY_TIME_CHARS; i++, v = Math.floor(v / 62)) t = BASE62[v % 62]! + t;
  return t + randomBase62(length - CAPABILITY_TIME_CHARS);
}

/** Identifier generator injected into the server (tests may substitute a deterministic one). */
export interface IdGenerator {
  uuid(): string;
  /** `prefix_` followed by `length` base62 characters (5.95 bits each). */
  token(prefix: string, length: number): string;
  /**
   * As `token`, for rows written in time order (`now`: the injected clock's ms): the characters
   * sort by `now` and keep at least 95 random bits (`timeOrderedSecretBase62`). Checkout session ids.
   */
  timeToken(prefix: string, length: number, now: number): string;
  /** As `uuid`, for rows written in time order: a UUIDv7 of `now` (74 random bits; not for secrets). Session history rows. */
  timeUuid(now: number): string;
}

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Rows keyed by it are
 * inserted at the end of their primary-key index instead of at a random page: a 100-line invoice
 * ingest dirtied ~100 index pages (each written to the WAL at commit) with random v4 ids.
 */
export function uuidV7(now = Date.now()): string {
  const r = takeRandomBytes(10);
  const hex = now.toString(16).padStart(12, '0') + r.toString('hex');
  // version 7 in the 13th hex digit, variant 10xx in the 17th
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The RFC 9562 variant (10xx) of a random hex digit, indexed by the digit's value. */
const VARIANT = '89ab89ab89ab89ab';

/**
 * `n` UUIDv7s of the same millisecond, as `uuidV7(now)` makes them, from one random draw and
 * one hex conversion (a 100-line invoice ingest made 100 of each).
 */
export function uuidV7s(n: number, now = Date.now()): string[] {
  const t = now.toString(16).padStart(12, '0');
  const head = `${t.slice(0, 8)}-${t.slice(8, 12)}-7`;
  const hex = takeRandomBytes(10 * n).toString('hex');
  const out = new Array<string>(n);
  for (let i = 0, o = 0; i < n; i++, o += 20) {
    // hex digits o…o+19 are the id's 80 random bits (hex[12…31] of uuidV7's layout)
    out[i] = `${head}${hex.slice(o + 1, o + 4)}-${VARIANT[parseInt(hex[o + 4]!, 16)]}${hex.slice(o + 5, o + 8)}-${hex.slice(o + 8, o + 20)}`;
  }
  return out;
}

export const randomIds: IdGenerator = {
  uuid: () => randomUUID(),
  token: (prefix, length) => `${prefix}_${randomBase62(length)}`,
  timeToken: (prefix, length, now) => `${prefix}_${timeOrderedSecretBase62(length, now)}`,
  timeUuid: (now) => uuidV7(now),
};

/** A checkout session's mode, read off its id (`cs_test_…` / `cs_live_…`), so scoping needs no join. */
export const sessionMode = (sessionId: string): 'test' | 'live' => (sessionId.startsWith('cs_live_') ? 'live' : 'test');
