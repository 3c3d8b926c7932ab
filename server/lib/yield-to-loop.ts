/**
 * Lets the event loop run (requests, timers) before the caller goes on. On SQLite every query
 * is synchronous and Kysely's awaits are microtasks, so without it a chain of transactions holds
 * the loop from its first statement to its last (the sweeper's tick did).
 */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
