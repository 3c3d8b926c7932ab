import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { connectDatabase } from '../../server/db/database';
import { runAdmin } from '../support/cli';
import { createPostgresDatabase, onPostgres } from '../support/database';

interface DoctorCheck {
  name: string;
  status: string;
  detail: string;
}

/**
 * DATABASE_POOL_SIZE bounds the connections an instance opens to PostgreSQL (docs/deployment.md,
 * "Topology"), and `doctor` says whether the server has room for one more instance's.
 */
describe.skipIf(!onPostgres)('DATABASE_POOL_SIZE on PostgreSQL', { timeout: 120_000 }, () => {
  it('an instance never holds more connections than its pool size; callers beyond it wait their turn', async () => {
    const { url, drop } = await createPostgresDatabase();
    try {
      const database = connectDatabase(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '2' }));
      try {
        const name = new URL(url).pathname.slice(1);
        let most = 0;
        const watching = (async () => {
          const admin = connectDatabase(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '1' }));
          try {
            for (let i = 0; i < 20; i++) {
              const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${name} and application_name = 'paydesk' and pid <> pg_backend_pid()`.execute(admin.db);
              most = Math.max(most, rows[0]!.n);
              await new Promise((r) => setTimeout(r, 50));
            }
          } finally {
            await admin.close();
          }
        })();
        // Six callers each holding a connection for 300 ms: two at a time.
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => sql<{ i: number }>`select ${i}::int as i from pg_sleep(0.3)`.execute(database.db)));
        await watching;
        expect(answers.map((a) => a.rows[0]!.i)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(most).toBe(2);
      } finally {
        await database.close();
      }
    } finally {
      await drop();
    }
  });

  const doctorOn = async (poolSize: string, use: (check: DoctorCheck | undefined, allowed: number, code: number | null) => void | Promise<void>) => {
    const { url, drop } = await createPostgresDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-pool-size-'));
    try {
      const probe = connectDatabase(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '1' }));
      const { rows } = await sql<{ allowed: number }>`select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int as allowed`.execute(probe.db);
      await probe.close();
      const allowed = rows[0]!.allowed;
      const r = await runAdmin(dataDir, ['doctor', '--json'], undefined, { DATABASE_URL: url, DATABASE_POOL_SIZE: poolSize === 'allowed' ? String(allowed) : poolSize });
      const out = JSON.parse(r.stdout) as { checks: DoctorCheck[] };
      await use(out.checks.find((c) => c.name === 'connections'), allowed, r.code);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await drop();
    }
  };

  it('doctor prints the arithmetic and the room for more instances at the default pool', async () => {
    await doctorOn('10', (check, allowed, code) => {
      expect(code).toBe(0);
      expect(check).toMatchObject({ status: 'ok', detail: expect.stringContaining(`an instance opens up to 12 (a pool of DATABASE_POOL_SIZE 10, 1 for webhooks, 1 for reports); the server allows ${allowed}`) });
      expect(check?.detail).toMatch(/room for \d+ more instance\(s\)$/);
    });
  });

  it('doctor warns, without failing, when one more pool would not fit', async (ctx) => {
    await doctorOn('allowed', (check, allowed, code) => {
      // A pool as large as all the server allows cannot fit beside the doctor's own connection.
      if (allowed > 200) ctx.skip(`the server allows ${allowed} connections, more than DATABASE_POOL_SIZE can ask for`);
      expect(code).toBe(0);
      expect(check).toMatchObject({ status: 'warn', detail: expect.stringMatching(/lower DATABASE_POOL_SIZE or raise max_connections \(docs\/deployment\.md\)$/) });
    });
  });
});
