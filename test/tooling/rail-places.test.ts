import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RAILS } from '../../shared/schemas/common';

const ROOT = resolve(__dirname, '../..');
const SOURCE_DIRS = ['server', 'shared', 'renderer', 'electron', 'scripts'];

/** The "a rail" entry of docs/architecture.md's "Where to add…": its paths, as written. */
function documentedPlaces(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Where to add'));
  const entry = /^- \*\*a rail\*\*:([\s\S]*?)(?=^- \*\*|^## )/m.exec(section)?.[1] ?? '';
  const paths = [...entry.matchAll(/`([a-z0-9_./-]+\/[a-z0-9_./-]*|[a-z0-9_-]+\.tsx?)`/g)].map((m) => m[1]!);
  // A bare file name (`bank-transfer-payment.tsx`, `0003_checkout.ts`) is written beside the
  // directory named just before it.
  let dir = '';
  return paths.map((p) => {
    if (p.includes('/')) {
      dir = p.endsWith('/') ? p : p.slice(0, p.lastIndexOf('/') + 1);
      return p;
    }
    return dir + p;
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A rail written in code: as a string (`'momo'`, a `case`), an object key (`momo:`) or a message id (`rail.momo`). */
// A rail is named as a string, an object key, `rail.x`, or an arm of an ICU `select` in a message (`momo {…}`).
const railIn = (text: string) => (rail: string) => new RegExp(`(['"\`])${rail}\\1|(^|[\\s{,])${rail}:|\\brail\\.${rail}\\b|\\bselect, (?:[^{}]|\\{[^{}]*\\})*?\\b${rail} \\{`, 'm').test(text);

/** A file names the rails one by one when every rail is in it. */
const enumeratesRails = (text: string) => RAILS.every(railIn(text));

const enumerating = SOURCE_DIRS.flatMap(sourceFiles)
  .filter((file) => enumeratesRails(readFileSync(join(ROOT, file), 'utf8')))
  .map((file) => relative(ROOT, join(ROOT, file)).split('\\').join('/'));

describe('adding a rail touches only the files docs/architecture.md lists', () => {
  const places = documentedPlaces();

  it('finds the rail list and the documented places', () => {
    // The detection itself: RAILS is the list, so its file must be found.
    expect(enumerating).toContain('shared/schemas/common.ts');
    expect(places).toContain('shared/schemas/common.ts');
  });

  it('documents every file that names the rails one by one', () => {
    const covered = (file: string) => places.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));
    expect(enumerating.filter((file) => !covered(file))).toEqual([]);
  });

  it('lists only places that exist', () => {
    const missing = places.filter((p) => {
      try {
        statSync(join(ROOT, p));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });

  it('lists only source files that name a rail (each is a place a rail is written)', () => {
    // Directories hold the new file (a migration, a provider); the example screen and the
    // provider registry name some rails, not all (cash has no provider).
    const listedFiles = places.filter((p) => !p.endsWith('/') && SOURCE_DIRS.some((d) => p.startsWith(`${d}/`)));
    expect(listedFiles.filter((p) => !RAILS.some(railIn(readFileSync(join(ROOT, p), 'utf8'))))).toEqual([]);
  });
});
