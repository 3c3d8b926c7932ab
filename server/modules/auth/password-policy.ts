import { invalid } from '../../lib/errors';
import { COMMON_PASSWORDS } from './common-passwords';

/** OWASP ASVS 2.1.1: at least 12 characters; 200 bounds the work scrypt does per sign-in. */
const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 200;

let common: Set<string> | undefined;

/** The bundled list (common-passwords.ts), split once, lower-cased. */
function commonPasswords(): Set<string> {
  common ??= new Set(COMMON_PASSWORDS.toLowerCase().split(/\s+/).filter(Boolean));
  return common;
}

/**
 * True when the password is a listed one, or a listed one with digits and symbols added
 * around it ("Password2025!"), which is how people satisfy length rules.
 */
export function isCommonPassword(password: string): boolean {
  const list = commonPasswords();
  const lower = password.toLowerCase();
  const core = lower.replace(/^[\d\W_]+|[\d\W_]+$/g, '');
  const unspaced = lower.replace(/[\s._-]+/g, '');
  return list.has(lower) || list.has(unspaced) || (core.length >= 3 && list.has(core));
}

/** Throws 400 INVALID_ARGUMENT naming `field` when the password may not be used. */
export function checkPassword(password: string, username: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw invalid(field, `must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw invalid(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
  if (new Set(password).size < 4) throw invalid(field, 'uses too few different characters');
  const name = username.trim().toLowerCase();
  if (name.length >= 3 && password.toLowerCase().includes(name)) throw invalid(field, 'must not contain the username');
  if (isCommonPassword(password)) throw invalid(field, 'is a commonly used password that attackers try first; choose another');
}
