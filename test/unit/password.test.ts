import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, PRODUCTION_SCRYPT_LOG2N, scryptCost, verifyPassword } from '../../server/lib/password';
import { checkPassword, isCommonPassword } from '../../server/modules/auth/password-policy';

describe('password hashing', () => {
  it('production hashes at N = 2^17 (OWASP); only PAYDESK_TEST_SCRYPT_LOG2N lowers it, never raises or disables it', async () => {
    expect(PRODUCTION_SCRYPT_LOG2N).toBe(17);
    expect(scryptCost({})).toBe(131_072);
    expect(scryptCost({ PAYDESK_TEST_SCRYPT_LOG2N: '12' })).toBe(4096);
    for (const bad of ['4', '30', 'abc', '']) expect(scryptCost({ PAYDESK_TEST_SCRYPT_LOG2N: bad })).toBe(131_072);
    // A real hash at the production cost: the parameters travel with it.
    const hash = await hashPassword('a production password', scryptCost({}));
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(await verifyPassword('a production password', hash)).toBe(true);
    expect(await verifyPassword('another password', hash)).toBe(false);
    expect(needsRehash(hash, scryptCost({}))).toBe(false);
    expect(needsRehash(await hashPassword('x', 16_384), scryptCost({}))).toBe(true);
  });

  it('refuses stored parameters that would ask for absurd memory', async () => {
    expect(await verifyPassword('x', 'scrypt$1073741824$8$1$AAAA$AAAA')).toBe(false);
  });
});

describe('password policy', () => {
  const refused = (password: string, username = 'ama.teller') => {
    try {
      checkPassword(password, username);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };
  it('refuses short, common, breached-style and username-based passwords, naming the field', () => {
    expect(refused('12345678')).toMatch(/^password: must be at least 12/);
    expect(refused('123456789012')).toMatch(/^password: is a commonly used password/);
    expect(refused('Password2025!')).toMatch(/commonly used/);
    expect(refused('qwertyuiop123')).toMatch(/commonly used/);
    expect(refused('iloveyou1234')).toMatch(/commonly used/);
    expect(refused('aaaaaaaaaaaaaa')).toMatch(/too few different characters/);
    expect(refused('ama.teller-2025', 'ama.teller')).toMatch(/username/);
    expect(isCommonPassword('BlackStars2024')).toBe(true);
  });
  it('accepts a long passphrase', () => {
    expect(refused('correct horse battery')).toBeNull();
    expect(refused('mango tree by the river')).toBeNull();
  });
});
