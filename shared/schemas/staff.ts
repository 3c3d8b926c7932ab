import { z } from 'zod';
import { IsoDateTime, requiredOr } from './common';

/** Back-office API shapes: staff accounts and sign-in (`/api/backoffice/v1/auth`, `/me`). */

export const STAFF_ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
export const StaffRole = z.enum(STAFF_ROLES);
export type StaffRole = z.infer<typeof StaffRole>;

export const StaffLogin = z.object({
  username: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(64, { error: 'must be at most 64 characters' }),
  password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
});
const StaffUser = z.object({ id: z.string(), username: z.string(), role: StaffRole });
type StaffUser = z.infer<typeof StaffUser>;
/** `must_change_password`: the account was created or reset by an admin; only POST /auth/password, GET /me and logout work until it is changed. */
export const StaffLoginResponse = z.object({ token: z.string(), user: StaffUser, expires_at: IsoDateTime, must_change_password: z.boolean() });
export type StaffLoginResponse = z.infer<typeof StaffLoginResponse>;
/** The languages the back office speaks (renderer/ui/i18n). */
const STAFF_LANGUAGES = ['en', 'fr'] as const;
const StaffLanguage = z.enum(STAFF_LANGUAGES, { error: requiredOr('must be en or fr') });
type StaffLanguage = z.infer<typeof StaffLanguage>;
export const StaffMe = z.object({
  user: StaffUser.extend({
    /** Chosen in the staff menu; null until chosen (the back office then follows the browser). */
    language: StaffLanguage.nullable(),
    branch_id: z.string().nullable(),
    branch_name: z.string().nullable(),
    merchant_id: z.string().nullable(),
    merchant_name: z.string().nullable(),
  }),
  expires_at: IsoDateTime,
  must_change_password: z.boolean(),
  /** The instance's time zone (TZ, an IANA name; Africa/Accra by default): staff screens name it beside the times they show. Every time the API returns is UTC. */
  time_zone: z.string(),
});
export const PasswordChange = z.object({
  current_password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
  new_password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
});
export type PasswordChange = z.infer<typeof PasswordChange>;
export type StaffMe = z.infer<typeof StaffMe>;
/** POST /me/language: the staff member's own language; null forgets the choice. */
export const LanguageChange = z.strictObject({ language: StaffLanguage.nullable() });
export type LanguageChange = z.infer<typeof LanguageChange>;
