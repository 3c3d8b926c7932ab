import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';

/**
 * PostgreSQL's trigram search reads, for every trigram of the text, that trigram's whole list of
 * sessions in the GIN index: a text with a word every payer shares ("Payer 999993" in the volume
 * bench, a common surname in life) reads a million-entry list per trigram of that word, though
 * the other word finds 124 sessions (1,184 index pages and 60–90 ms at a million sessions,
 * against 28 pages and 0.4 ms for the rare word alone). So when a text has several words and
 * one of them is rare, the index is asked for that word only, and the whole text is checked on
 * the rows it finds (finance-search.ts): the same sessions, since every one containing the text
 * contains each of its words.
 *
 * How common a word is comes from a sample of the sessions' names and refs (about SAMPLE_ROWS,
 * `TABLESAMPLE SYSTEM`), read at most once per REFRESH_MS per database and process. Below
 * MIN_TABLE sessions the whole text is always used (its index lists are short anyway).
 */
export const SAMPLE_ROWS = 2_000;
export const REFRESH_MS = 10 * 60_000;
export const MIN_TABLE = 100_000;
/** A word found in at most this share of the sample is "rare". */
export const RARE = 0.01;

interface Sample {
  at: number;
  texts: string[];
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

async function sampleOf(db: Kysely<Database>, now: number): Promise<string[]> {
  const cached = samples.get(db);
  if (cached && now - cached.at < REFRESH_MS) return cached.texts;
  const rows = (await sql<{ n: number }>`SELECT reltuples AS n FROM pg_class WHERE oid = 'checkout_sessions'::regclass`.execute(db)).rows;
  const n = Number(rows[0]?.n ?? 0);
  let texts: string[] = [];
  if (n >= MIN_TABLE) {
    const percent = Math.min(100, (SAMPLE_ROWS * 100) / n);
    const found = await sql<{ t: string }>`SELECT lower(coalesce(customer_name, '') || ' ' || invoice_ref) AS t FROM checkout_sessions TABLESAMPLE SYSTEM (${sql.lit(percent)}) LIMIT ${SAMPLE_ROWS * 2}`.execute(db);
    texts = found.rows.map((r) => r.t);
  }
  samples.set(db, { at: now, texts });
  return texts;
}

/** PostgreSQL only: the rare word of `q` for the trigram index (or null), from this process's sample. */
export async function indexWord(db: Kysely<Database>, q: string, now: number): Promise<string | null> {
  if (!/\s/.test(q.trim())) return null;
  return rareWord(q, await sampleOf(db, now));
}
