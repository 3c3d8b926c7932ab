/** The idempotency module as other modules see it: replaying a keyed write, and purging old keys. */
export { IdempotencyHeaders, sendIdempotent, type KnownWrite } from './idempotent-reply';
export { purgeExpiredIdempotencyKeys } from './idempotency.service';
