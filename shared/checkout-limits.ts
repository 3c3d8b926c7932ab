/**
 * Limits the payer's page shows as well as the server enforces, in a module of their own so the
 * page imports them without the request schemas (and zod) beside them.
 */

/**
 * Declined attempts (card and Mobile Money together) after which a session is `failed`: an
 * anti-abuse cap against card testing and code guessing, far above what a payer needs
 * (docs/lifecycle.md). Below it a decline never ends the session.
 */
export const MAX_DECLINED_ATTEMPTS = 20;
