/**
 * PostgreSQL statements this process has sent (each one a round trip: pg sends a query's parse,
 * bind and execute together and waits for its answer) and the times a caller found every pooled
 * connection busy and had to wait for one. `/metrics` exposes both (server/http/metrics.ts);
 * `npm run bench` divides them by the requests of each PostgreSQL scenario.
 */
export const roundTrips = { statements: 0, poolWaits: 0 };
