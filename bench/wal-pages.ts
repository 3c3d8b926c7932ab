import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import type SQLite from 'better-sqlite3';

/**
 * Which b-trees a workload wrote to the WAL: with `wal_autocheckpoint = 0` and the WAL truncated
 * before the workload (`startWalCount`), `walPagesByTree` reads every frame header of the `-wal`
 * file (page number per frame, WAL format of sqlite.org/fileformat2.html#walformat) and names each
 * page's table or index through the `dbstat` virtual table. Frames per tree, and commits (frames
 * with a non-zero "database size" field). A bench aid (bench-fanout.ts FANOUT_WAL=1), not used by
 * the server.
 */
export function startWalCount(sqlite: SQLite.Database): void {
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
}

export function walPagesByTree(sqlite: SQLite.Database, file: string): { frames: number; commits: number; byTree: Record<string, number> } {
  const owner = new Map<number, string>();
  for (const r of sqlite.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>) owner.set(r.pageno, r.name);
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const frame = Buffer.alloc(24);
    const byTree: Record<string, number> = {};
    let frames = 0;
    let commits = 0;
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 24, at);
      const page = frame.readUInt32BE(0);
      if (frame.readUInt32BE(4) !== 0) commits++;
      const name = page === 1 ? '(header page)' : (owner.get(page) ?? '(free or other)');
      byTree[name] = (byTree[name] ?? 0) + 1;
      frames++;
    }
    return { frames, commits, byTree };
  } finally {
    closeSync(fd);
  }
}
