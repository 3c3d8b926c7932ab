/** The idempotency module as other modules see it: the request's key, the reservation in a service's transaction, purging old keys. */
export { IdempotencyHeaders, idempotencyKeyOf, sendKeyed } from './idempotent-reply';
export { idempotency, keyUpsert, purgeExpiredIdempotencyKeys, type IdempotencyKey, type KeyedAnswer, type KeyReservation } from './idempotency.service';
