import { SESSION_COLUMNS } from '../../domain/session-transitions';

/**
 * A session's columns as the back office reads them (alias `s`), named rather than `s.*`: on
 * PostgreSQL the table also holds the search's lower-cased copies of the payer name and invoice
 * ref (migration 0033), an index detail that lists, details and exports never read.
 */
export const SESSION_SELECTION = SESSION_COLUMNS.map((c) => `s.${c}` as const);
