import { describe, expect, it } from 'vitest';
import { describeDatabase } from '../../server/db/database';

/** The `npm run serve` startup line names where the data lives, never a password. */
describe('describeDatabase', () => {
  it('names the SQLite file when DATABASE_URL is unset', () => {
    expect(describeDatabase({ databaseUrl: null, databaseFile: '/srv/paydesk/paydesk.sqlite' })).toBe('/srv/paydesk/paydesk.sqlite');
  });

  it('names the PostgreSQL host, port and database, without user or password', () => {
    const line = describeDatabase({ databaseUrl: 'postgres://paydesk:s3cr%40t@db.internal:6432/paydesk_prod?sslmode=require', databaseFile: '/x/paydesk.sqlite' });
    expect(line).toBe('PostgreSQL db.internal:6432/paydesk_prod');
    expect(line).not.toMatch(/s3cr|paydesk:|sqlite/);
  });

  it('a URL without a port or with a Unix socket still names the server', () => {
    expect(describeDatabase({ databaseUrl: 'postgresql://u:p@localhost/test', databaseFile: '' })).toBe('PostgreSQL localhost/test');
    expect(describeDatabase({ databaseUrl: 'postgres://u:pw@/paydesk?host=/var/run/postgresql', databaseFile: '' })).toBe('PostgreSQL /var/run/postgresql/paydesk');
  });
});
