import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

/**
 * One normalisation for usernames, used by account creation, the sign-in lookup and the
 * sign-in throttle alike: Unicode NFKC (so a full-width `ｐｆｉｎＡ` is `pfinA`), then the
 * locale-independent lower-case mapping (`String.prototype.toLowerCase`, never the locale's).
 * Usernames are letters, digits and `. _ @ -` of ASCII once normalised, so the databases'
 * case-insensitive comparison (citext on PostgreSQL, NOCASE on SQLite) only ever meets ASCII
 * and both engines agree: `pfİnA` folds to `pfi̇na` (with U+0307), which is no username, and
 * never to `pfina`, as citext's locale would fold it.
 */
export function usernameKey(typed: string): string {
  return typed.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** A username as stored: 3 to 64 letters, digits or `. _ @ -` after NFKC (display case kept). */
export const USERNAME_SHAPE = /^[A-Za-z0-9._@-]{3,64}$/;

/** The username as typed, made NFKC and trimmed: what account creation stores (its case kept). */
export const usernameAsStored = (typed: string): string => typed.trim().normalize('NFKC');

/** Whether a normalised key can name an account at all (otherwise no lookup is made). */
export const couldBeUsername = (key: string): boolean => USERNAME_SHAPE.test(key);

/** The `server_secrets` row holding the throttle's HMAC key (migration 0035). */
const THROTTLE_SECRET = 'login_throttle_hmac';

/**
 * What the sign-in throttle stores for a username: an HMAC-SHA256 of its normalised key under a
 * random secret of this database, never the text (someone may type their password into the
 * username field). The secret is in the same database, so the hash only keeps the text out of
 * the rows, backups and logs; it is not meant to resist someone holding the whole database.
 */
export const throttleName = (secret: string, typed: string): string => createHmac('sha256', secret).update(usernameKey(typed)).digest('base64url');

export async function throttleSecret(db: Kysely<Database>): Promise<string> {
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', THROTTLE_SECRET).executeTakeFirst();
  if (!row) throw new Error('server_secrets has no sign-in throttle secret: run the migrations');
  return row.value;
}
