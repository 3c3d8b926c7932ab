/** The idempotency module as other modules see it: the request's key, the reservation in a service's transaction, purging old keys. */
export { IdempotencyHeaders, idempotencyKeyOf, sendKeyed } from './idempotent-reply';
export { idempotency, purgeExpiredIdempotencyKeys, type IdempotencyKey, type KeyedAnswer } from './idempotency.service';
