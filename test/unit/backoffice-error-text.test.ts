import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { errorText as errorTextIn } from '../../renderer/backoffice/features/common/error-text';
import { backofficeCatalog } from '../../renderer/backoffice/messages';
import type { Language, T } from '../../renderer/ui/i18n';
import { ERROR_CODES } from '../../server/lib/errors';

/** The back office's messages in one language, as useT() gives them to a component. */
const messagesIn = (language: Language): T =>
  ((id: string, values?: Record<string, unknown>) => {
    const text = backofficeCatalog[language][id];
    if (text === undefined) throw new Error(`no message ${id}`);
    return String(new IntlMessageFormat(text, language).format(values as never));
  }) as T;
const english = messagesIn('en');
const french = messagesIn('fr');
const errorText = (error: unknown, field?: string) => errorTextIn(english, error, field);

// Staff never read the API's developer text; every error code has a sentence.
describe('back-office error sentences', () => {
  // The shape api/client.ts throws (ApiError), built here without the browser fetch code.
  const err = (status: number, code: string, message: string) => Object.assign(new Error(message), { name: 'ApiError', status, code });

  it('turns the examples of the issue into sentences without field names, codes or seconds', () => {
    expect(errorText(err(403, 'FORBIDDEN', 'a supervisor may not make this call (allowed: teller)'))).toBe(
      'Your role cannot do this. Ask a colleague with the right role, or an administrator.',
    );
    expect(errorText(err(429, 'RATE_LIMITED', 'too many sign-in attempts; try again in 897 s'))).toBe('Too many attempts. Try again in about 15 minutes.');
    expect(errorText(err(400, 'INVALID_ARGUMENT', 'password: must be 8 to 200 characters'))).toBe('Password must be 8 to 200 characters long.');
    expect(errorText(err(400, 'INVALID_ARGUMENT', 'password: must be 8 to 200 characters'), 'password')).toBe('Must be 8 to 200 characters long.');
    expect(errorText(err(400, 'INVALID_ARGUMENT', 'reason: must not be empty'))).toBe('Reason cannot be empty.');
    expect(errorText(err(403, 'FORBIDDEN', 'maker-checker: the staff member who recorded a deposit may not review it'))).toBe(
      'You recorded this deposit, so another supervisor must review it.',
    );
  });

  it('has a sentence for every error code the server can send, never the raw message', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const raw = `some_field: developer detail for ${code} (allowed: x)`;
      const text = errorText(err(status, code, raw));
      expect(text, code).not.toContain('developer detail');
      expect(text, code).not.toContain('some_field');
      expect(text, code).toMatch(/^[A-Z].*\.$/);
      expect(text, code).not.toMatch(/error [A-Z_]+\)/);
    }
    expect(errorText(new TypeError('Failed to fetch'))).toMatch(/could not be reached/);
  });

  it('speaks French to staff who chose French, the server text staying out', () => {
    expect(errorTextIn(french, err(403, 'FORBIDDEN', 'a supervisor may not make this call (allowed: teller)'))).toBe(
      'Votre rôle ne permet pas cette opération. Adressez-vous à un collègue habilité ou à un administrateur.',
    );
    expect(errorTextIn(french, err(429, 'RATE_LIMITED', 'too many sign-in attempts; try again in 897 s'))).toBe('Trop de tentatives. Réessayez dans environ 15 minutes.');
    expect(errorTextIn(french, err(400, 'INVALID_ARGUMENT', 'password: must be 8 to 200 characters'))).toBe('Mot de passe : doit compter de 8 à 200 caractères.');
    expect(errorTextIn(french, err(400, 'INVALID_ARGUMENT', 'reason: must not be empty'), 'reason')).toBe('Ne peut pas être vide.');
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const text = errorTextIn(french, err(status, code, `some_field: developer detail for ${code}`));
      expect(text, code).not.toContain('developer detail');
      expect(text, code).not.toBe(errorText(err(status, code, `some_field: developer detail for ${code}`)));
    }
  });
});
