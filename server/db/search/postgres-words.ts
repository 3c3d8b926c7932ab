import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema';

/**
 * PostgreSQL's trigram search reads, for every trigram of the text, that trigram's whole list of
 * sessions in the GIN index: a text with a word every payer shares ("Payer 999993" in the volume
 * bench, a common surname in life) reads a million-entry list per trigram of that word, though
 * the other word finds 124 sessions (1,184 index pages and 60–90 ms at a million sessions,
 * against 28 pages and 0.4 ms for the rare word alone). So when a text has several words and
 * one of them is rare, the index is asked for that word only, and the whole text is checked on
 * the rows it finds (server/db/search/): the same sessions, since every one containing the text
 * contains each of its words.
 *
 * How common a word is comes from a sample of the sessions' names and refs (about SAMPLE_ROWS,
 * `TABLESAMPLE SYSTEM`), read at most once per REFRESH_MS per database and process. Below
 * MIN_TABLE sessions the whole text is always used (its index lists are short anyway).
 * The same sample estimates how many sessions a text finds (estimatedMatches): a broad one is
 * read day by day, newest first (server/db/search/ newestByDay). A wrong estimate costs time,
 * never a different answer: both ways find the same newest sessions.
 */
export const SAMPLE_ROWS = 2_000;
const REFRESH_MS = 10 * 60_000;
const MIN_TABLE = 100_000;
/** A word found in at most this share of the sample is "rare". */
const RARE = 0.01;

interface Sample {
  at: number;
  texts: string[];
  /** The table's estimated row count (pg_class.reltuples) when the sample was read. */
  rows: number;
}
const samples = new WeakMap<Kysely<Database>, Sample>();

/** The rare word (3+ characters, lower case) of `q` to ask the index for, or null for the whole text. Pure: `texts` is the sample. */
export function rareWord(q: string, texts: readonly string[]): string | null {
  const words = [...new Set(q.toLowerCase().split(/\s+/).filter((w) => w.length >= 3))];
  if (words.length === 0 || (words.length === 1 && words[0] === q.toLowerCase()) || texts.length < SAMPLE_ROWS / 4) return null;
  let best: { word: string; share: number } | null = null;
  for (const word of words) {
    const share = texts.filter((t) => t.includes(word)).length / texts.length;
    if (!best || share < best.share || (share === best.share && word.length > best.word.length)) best = { word, share };
  }
  return best && best.share <= RARE ? best.word : null;
}

async function sampleOf(db: Kysely<Database>, now: number): Promise<Sample> {
  const cached = samples.get(db);
  if (cached && now - cached.at < REFRESH_MS) return cached;
  const rows = (await sql<{ n: number }>`SELECT reltuples AS n FROM pg_class WHERE oid = 'checkout_sessions'::regclass`.execute(db)).rows;
  const n = Number(rows[0]?.n ?? 0);
  let texts: string[] = [];
  if (n >= MIN_TABLE) {
    const percent = Math.min(100, (SAMPLE_ROWS * 100) / n);
    const found = await sql<{ t: string }>`SELECT lower(coalesce(customer_name, '') || ' ' || invoice_ref) AS t FROM checkout_sessions TABLESAMPLE SYSTEM (${sql.lit(percent)}) LIMIT ${SAMPLE_ROWS * 2}`.execute(db);
    texts = found.rows.map((r) => r.t);
  }
  const sample = { at: now, texts, rows: n };
  samples.set(db, sample);
  return sample;
}

/**
 * About how many sessions contain `q` (any case): its share of the sample times the table's
 * rows, 0 without a usable sample (a small table). Pure.
 */
export function estimatedMatches(q: string, texts: readonly string[], rows: number): number {
  if (texts.length < SAMPLE_ROWS / 4) return 0;
  const needle = q.toLowerCase();
  return (texts.filter((t) => t.includes(needle)).length / texts.length) * rows;
}

/** How PostgreSQL's trigram search should ask its index for a text of 3+ characters (server/db/search/). */
export interface IndexPlan {
  /** The rare word to ask the index for instead of the whole text, or null. */
  word: string | null;
  /** About how many sessions the text finds, from the sample (0 when unknown). */
  estimate: number;
}

/** PostgreSQL only: the rare word of `q` for the trigram index (or null) and its estimated matches, from this process's sample. */
export async function indexPlan(db: Kysely<Database>, q: string, now: number): Promise<IndexPlan> {
  const text = q.trim();
  const sample = await sampleOf(db, now);
  const word = /\s/.test(text) ? rareWord(text, sample.texts) : null;
  return { word, estimate: word === null ? estimatedMatches(text, sample.texts, sample.rows) : 0 };
}
