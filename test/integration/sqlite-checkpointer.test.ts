import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDatabase, WAL_AUTOCHECKPOINT_PAGES, type OpenedDatabase } from '../../server/db/database';
import { BACKSTOP_WAL_PAGES, startCheckpointer, type Checkpointer } from '../../server/db/sqlite-checkpointer';
import { startServer, type RunningServer } from '../../server/runtime';

/**
 * The WAL checkpointed by a worker thread (server/db/sqlite-checkpointer.ts): while it runs, the
 * server's connection no longer checkpoints inside its commits (only past the backstop), and the
 * pages still reach the database file, copied by the worker's connection.
 */
describe('the SQLite checkpoint worker', () => {
  let dir: string;
  let opened: OpenedDatabase | undefined;
  let checkpointer: Checkpointer | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await checkpointer?.stop();
    await server?.stop();
    await opened?.close();
    checkpointer = server = opened = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** ~`pages` 4 KB pages of rows, in transactions of about 50 pages each (the autocheckpoint runs after a commit). */
  const write = (o: OpenedDatabase, pages: number, from = 0) => {
    const insert = o.sqlite.prepare('INSERT INTO filler (id, body) VALUES (?, ?)');
    const body = 'x'.repeat(3500);
    for (let i = from; i < from + pages; i += 50) o.sqlite.transaction(() => {
      for (let j = i; j < i + 50; j++) insert.run(j, body);
    })();
  };
  const fileSize = (file: string) => statSync(file).size;

  it('copies the WAL into the database file from its own connection; the server connection checkpoints only past the backstop', async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-ckpt-'));
    const file = join(dir, 'paydesk.sqlite');
    opened = openDatabase(file);
    opened.sqlite.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    expect(opened.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    // A minute between the worker's own checkpoints: only checkpointNow() runs one here.
    checkpointer = startCheckpointer(opened.sqlite, file, { intervalMs: 60_000 });
    expect(opened.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_WAL_PAGES);
    await checkpointer.checkpointNow(); // the table's creation, so the file's size is the baseline
    const before = fileSize(file);

    // Three times the old autocheckpoint: without the worker the server's own commits would have
    // copied most of it into the file already.
    write(opened, 3 * WAL_AUTOCHECKPOINT_PAGES);
    expect(fileSize(file) - before).toBeLessThan(4096 * 20);

    const result = await checkpointer.checkpointNow();
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThanOrEqual(3 * WAL_AUTOCHECKPOINT_PAGES);
    expect(result.checkpointed).toBe(result.log);
    expect(fileSize(file) - before).toBeGreaterThan(4096 * 3 * WAL_AUTOCHECKPOINT_PAGES * 0.9);
    // Every row reads back through the server's connection.
    expect(opened.sqlite.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 3 * WAL_AUTOCHECKPOINT_PAGES });

    await checkpointer.stop();
    expect(opened.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    await expect(checkpointer.checkpointNow()).rejects.toThrow(/stopped/);
  });

  it('checkpoints by itself, every intervalMs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-ckpt-'));
    const file = join(dir, 'paydesk.sqlite');
    opened = openDatabase(file);
    opened.sqlite.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    checkpointer = startCheckpointer(opened.sqlite, file, { intervalMs: 20 });
    const before = fileSize(file);
    write(opened, 200);
    const until = Date.now() + 10_000;
    while (fileSize(file) - before < 4096 * 180 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(fileSize(file) - before).toBeGreaterThanOrEqual(4096 * 180);
  });

  it('reports a lasting failure once, then one in every reportEvery, and says when checkpoints succeed again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-ckpt-'));
    const file = join(dir, 'paydesk.sqlite');
    opened = openDatabase(file);
    opened.sqlite.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    // Exclusive locking: no other connection can read the database, so every checkpoint fails.
    opened.sqlite.pragma('locking_mode = EXCLUSIVE');
    write(opened, 50);
    const errors: Array<[string, number]> = [];
    const recovered: number[] = [];
    checkpointer = startCheckpointer(opened.sqlite, file, { intervalMs: 60_000, busyTimeoutMs: 0, reportEvery: 3, onError: (m, n) => errors.push([m, n]), onRecovered: (n) => recovered.push(n) });
    for (let i = 0; i < 7; i++) await expect(checkpointer.checkpointNow()).rejects.toThrow(/checkpoint failed/);
    // Failures 1, 3 and 6 of the 7 in a row.
    expect(errors.map(([, n]) => n)).toEqual([1, 3, 6]);
    expect(errors[0]![0]).toMatch(/locked/);
    expect(recovered).toEqual([]);

    // The lock is given up at the connection's next read in normal mode.
    opened.sqlite.pragma('locking_mode = NORMAL');
    opened.sqlite.prepare('SELECT count(*) FROM filler').get();
    const result = await checkpointer.checkpointNow();
    expect(result.checkpointed).toBe(result.log);
    expect(recovered).toEqual([7]);
    await checkpointer.checkpointNow();
    expect(recovered).toEqual([7]);
    expect(errors).toHaveLength(3);
  });

  it('runs in the server on SQLite, and stops with it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-ckpt-'));
    const config = loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0' });
    server = await startServer(config, { logger: false });
    const sqlite = server.database.sqlite;
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_WAL_PAGES);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await server.stop();
    server = undefined;
    expect(sqlite.open).toBe(false);
    // The last connection to close checkpoints and removes the WAL: the worker's closed too.
    expect(existsSync(`${config.databaseFile}-wal`)).toBe(false);
  });
});
