import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/database';

const mode = (path: string) => statSync(path).mode & 0o777;

/** The database (webhook secrets, payer data) is readable by its owner only. */
describe.skipIf(process.platform === 'win32')('data directory and database file modes', () => {
  const root = mkdtempSync(join(tmpdir(), 'paydesk-perm-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates DATA_DIR 0700 and the database, -wal and -shm files 0600, whatever the umask', async () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(root, 'fresh', 'data');
      const file = join(dir, 'paydesk.sqlite');
      const database = openDatabase(file);
      await migrate(database.db); // writes: the WAL and shared-memory files exist now
      expect(mode(dir)).toBe(0o700);
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
      expect(mode(`${file}-shm`)).toBe(0o600);
      await database.close();
    } finally {
      process.umask(previous);
    }
  });

  it('narrows database files an earlier version left world-readable', async () => {
    const file = join(root, 'old.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    writeFileSync(`${file}-wal`, '');
    chmodSync(`${file}-wal`, 0o644);
    const database = openDatabase(file);
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}-wal`)).toBe(0o600);
    await database.close();
  });
});
