/**
 * Back-office API (`/api/backoffice/v1`): request and response shapes shared by
 * the server (validation, response serialisation) and the React back office (types).
 */
export * from './staff';
export * from './cash-desk';
export * from './finance';
export * from './audit';
