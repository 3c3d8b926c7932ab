import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isDeadConnectionError } from '../../server/db/connection-errors';

// What node-postgres and pg-pool throw, by code or message: which answer 503, and which are a dead
// pooled connection that a transaction may leave for the next one (server/db/postgres.ts).
const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('database connection errors', () => {
  it('a backend terminated or crashed, a reset socket, a client already broken: dead connections, and 503', () => {
    for (const e of [
      err('terminating connection due to administrator command', '57P01'),
      err('terminating connection because of crash of another server process', '57P02'),
      err('read ECONNRESET', 'ECONNRESET'),
      err('write EPIPE', 'EPIPE'),
      err('connection failure', '08006'),
      err('Connection terminated unexpectedly'),
      err('Client has encountered a connection error and is not queryable'),
      err('Client was closed and is not queryable'),
    ]) {
      expect(isDeadConnectionError(e), e.message).toBe(true);
      expect(isDatabaseUnavailable(e), e.message).toBe(true);
    }
  });

  it('a connect refused or timed out, a statement timeout, too many connections: 503, but not a dead pooled connection (a new one fares no better)', () => {
    for (const e of [
      err('timeout exceeded when trying to connect'),
      err('Connection terminated due to connection timeout'),
      err('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      err('canceling statement due to statement timeout', '57014'),
      err('the database system is starting up', '57P03'),
      err('sorry, too many clients already', '53300'),
    ]) {
      expect(isDeadConnectionError(e), e.message).toBe(false);
      expect(isDatabaseUnavailable(e), e.message).toBe(true);
    }
  });

  it('anything else is neither', () => {
    for (const e of [err('duplicate key value violates unique constraint', '23505'), err('boom'), null, undefined]) {
      expect(isDeadConnectionError(e)).toBe(false);
      expect(isDatabaseUnavailable(e)).toBe(false);
    }
  });
});
