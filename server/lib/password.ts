import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's current scrypt figure: N = 2^17, r = 8, p = 1 (128 MiB and ~0.3 s per hash). */
export const PRODUCTION_SCRYPT_LOG2N = 17;
const R = 8;
const P = 1;
const KEYLEN = 32;

/**
 * The cost new hashes get. Only a test suite lowers it, through PAYDESK_TEST_SCRYPT_LOG2N
 * (10 to 17; anything else is ignored), because the suite signs in hundreds of times; a
 * test proves the default is 2^17 (test/unit/password.test.ts).
 */
export function scryptCost(env: NodeJS.ProcessEnv = process.env): number {
  const lowered = Number(env.PAYDESK_TEST_SCRYPT_LOG2N);
  const log2n = Number.isInteger(lowered) && lowered >= 10 && lowered <= PRODUCTION_SCRYPT_LOG2N ? lowered : PRODUCTION_SCRYPT_LOG2N;
  return 2 ** log2n;
}

// Node refuses scrypt above 32 MiB by default; N=2^17, r=8 needs 128 MiB plus a margin.
const maxmem = (n: number, r: number) => 128 * n * r + 16 * 1024 * 1024;

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash` (base64url parts): the parameters travel with the hash, so the cost can rise later. */
export async function hashPassword(password: string, n: number = scryptCost()): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEYLEN, { N: n, r: R, p: P, maxmem: maxmem(n, R) });
  return ['scrypt', n, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string) {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return null;
  const N = Number(n);
  const rr = Number(r);
  const pp = Number(p);
  // Bounds keep a tampered row from asking for gigabytes of memory.
  if (![N, rr, pp].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || rr < 1 || rr > 32 || pp < 1 || pp > 16) return null;
  return { N, r: rr, p: pp, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.hash.length, { N: parsed.N, r: parsed.r, p: parsed.p, maxmem: maxmem(parsed.N, parsed.r) });
  return timingSafeEqual(key, parsed.hash);
}

/** True when the stored hash is cheaper than what new hashes get: rehash it at the next sign-in. */
export function needsRehash(stored: string, n: number = scryptCost()): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.N < n || parsed.r < R;
}
