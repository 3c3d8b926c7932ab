/** Transactions of this process re-run after a serialization failure or deadlock (PostgreSQL; tests assert where none should be). */
export const transactionRetries = { count: 0 };
