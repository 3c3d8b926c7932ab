import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 string of `length` characters from the CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const b of bytes) {
      // 248 = 62 * 4: reject the top bytes so every character is equally likely.
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Identifier generator injected into the server (tests may substitute a deterministic one). */
export interface IdGenerator {
  uuid(): string;
  /** `prefix_` followed by `length` base62 characters (5.95 bits each). */
  token(prefix: string, length: number): string;
}

export const randomIds: IdGenerator = {
  uuid: () => randomUUID(),
  token: (prefix, length) => `${prefix}_${randomBase62(length)}`,
};
