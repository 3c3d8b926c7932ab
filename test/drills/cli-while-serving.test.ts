import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDir, request, runAdmin, spawnServer, type Child } from '../support/drills';
import { budget } from '../support/pace';

/**
 * The operator CLI writes to the same SQLite file while the server serves (WAL + busy_timeout):
 * neither side fails with SQLITE_BUSY, and an online backup taken under load is a consistent copy.
 */
describe('drill: CLI writing while the server serves', () => {
  const cleanup: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** Session creates from 4 concurrent clients until stopped; returns the ids answered 201 and every status seen. */
  function load(server: Child, key: string) {
    const created: string[] = [];
    const statuses: number[] = [];
    let stop = false;
    let n = 0;
    const loop = async () => {
      while (!stop) {
        const i = ++n;
        let r;
        try {
          r = await request(server.url, 'POST', '/api/v1/sessions', { key, body: { amount_minor: 100 + i, invoice_ref: `INV-LOAD-${i}` } });
        } catch {
          statuses.push(-1); // connection failure: counted against the server below
          continue;
        }
        statuses.push(r.status);
        if (r.status === 201) created.push((r.body as { id: string }).id);
      }
    };
    const loops = Array.from({ length: 4 }, loop);
    return { created, statuses, stop: async () => ((stop = true), await Promise.all(loops)) };
  }

  // Spawning tsx processes on a shared 2-core machine is slow: these drills get 90 s.
  it('no 5xx and no CLI failure while integrations are created under load; the server sees them at once', { timeout: budget(90_000) }, async () => {
    const data = dataDir();
    cleanup.push(data.rm);
    const server = await spawnServer(data.dir);
    cleanup.push(() => server.stop());
    const first = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', 'Busy Drill']);
    const traffic = load(server, first.api_key);
    try {
      for (let i = 0; i < 2; i++) {
        const made = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', `Busy Drill ${i}`]);
        const r = await request(server.url, 'POST', '/api/v1/sessions', { key: made.api_key, body: { amount_minor: 300, invoice_ref: `INV-NEW-${i}` } });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
      }
    } finally {
      await traffic.stop();
    }
    expect(traffic.created.length).toBeGreaterThan(0);
    expect(traffic.statuses.filter((s) => s >= 500 || s < 0)).toEqual([]);
  });

  it('db:backup under load is a consistent copy holding every session created before it started', { timeout: budget(90_000) }, async () => {
    const data = dataDir();
    cleanup.push(data.rm);
    const server = await spawnServer(data.dir);
    cleanup.push(() => server.stop());
    const { api_key } = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', 'Backup Drill']);
    const traffic = load(server, api_key);
    const out = join(data.dir, 'backup', 'copy.sqlite');
    let before: string[];
    try {
      while (traffic.created.length < 30) await new Promise((r) => setTimeout(r, 20));
      before = [...traffic.created];
      const result = await runAdmin<{ file: string; pages: number }>(data.dir, ['db:backup', '--out', out]);
      expect(result.file).toBe(out);
      expect(result.pages).toBeGreaterThan(0);
      // The copy holds the same secrets as the database: owner-only, like it.
      if (process.platform !== 'win32') expect(statSync(out).mode & 0o777).toBe(0o600);
    } finally {
      await traffic.stop();
    }
    expect(traffic.statuses.filter((s) => s >= 500 || s < 0)).toEqual([]);
    const copy = new SQLite(out, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set((copy.prepare('SELECT id FROM checkout_sessions').all() as Array<{ id: string }>).map((r) => r.id));
      for (const id of before) expect(ids.has(id), id).toBe(true);
    } finally {
      copy.close();
    }
    // The copy is a working DATA_DIR: a server started on it serves those sessions.
    const restored = dataDir();
    cleanup.push(restored.rm);
    copyFileSync(out, restored.file);
    const second = await spawnServer(restored.dir);
    cleanup.push(() => second.stop());
    const got = await request(second.url, 'GET', `/api/v1/sessions/${before[0]}`, { key: api_key });
    expect(got.status).toBe(200);
  });
});
