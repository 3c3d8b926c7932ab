import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';

import { backofficeCatalog } from '../../renderer/backoffice/messages';
import { checkoutCatalog } from '../../renderer/checkout/messages';
import { pseudoMessage, type Catalog } from '../../renderer/ui/i18n';

/** Argument names a message uses (`{amount}`, `{count, plural, …}`, `<b>…</b>`), nested too. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
    into.add(`${el.type === TYPE.tag ? '<' : ''}${el.value}`);
    if (el.type === TYPE.tag) argumentsOf(el.children, into);
    if (el.type === TYPE.select || el.type === TYPE.plural) {
      for (const opt of Object.values(el.options)) argumentsOf(opt.value, into);
    }
  }
  return into;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every literal id a component asks for: `t('x.y'` and `t("x.y"`. */
function idsUsed(files: string[]): Map<string, string> {
  const used = new Map<string, string>();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*['"]([\w.-]+)['"]/g)) used.set(m[1]!, relative(process.cwd(), file));
  }
  return used;
}

const apps: Array<{ name: string; catalog: Catalog; dirs: string[] }> = [
  { name: 'back office', catalog: backofficeCatalog, dirs: ['renderer/backoffice'] },
  { name: 'checkout', catalog: checkoutCatalog, dirs: ['renderer/checkout'] },
];

describe.each(apps)('$name messages', ({ catalog, dirs }) => {
  it('has every id in both languages, and nothing French that English lacks', () => {
    const en = Object.keys(catalog.en).sort();
    const fr = Object.keys(catalog.fr).sort();
    expect(fr.filter((id) => !(id in catalog.en))).toEqual([]);
    expect(en.filter((id) => !(id in catalog.fr))).toEqual([]);
  });

  it('parses as ICU in both languages, with the same arguments and no empty message', () => {
    const problems: string[] = [];
    for (const [id, english] of Object.entries(catalog.en)) {
      const french = catalog.fr[id] ?? '';
      if (!english.trim() || !french.trim()) problems.push(`${id}: empty`);
      try {
        const a = [...argumentsOf(parse(english))].sort();
        const b = [...argumentsOf(parse(french))].sort();
        if (a.join() !== b.join()) problems.push(`${id}: en {${a}} but fr {${b}}`);
        pseudoMessage(english);
      } catch (err) {
        problems.push(`${id}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has a message for every id a component asks for', () => {
    const used = idsUsed(dirs.flatMap(sourceFiles));
    const missing = [...used].filter(([id]) => !(id in catalog.en)).map(([id, file]) => `${id} (${file})`);
    expect(missing).toEqual([]);
  });
});

describe('the pseudo-locale', () => {
  it('keeps placeholders and plural forms and brackets the message', () => {
    const out = pseudoMessage("{count, plural, one {# deposit} other {# deposits}} waiting since {time} — it's <b>late</b>");
    expect(out.startsWith('⟦') && out.endsWith('⟧')).toBe(true);
    expect(out).toContain('{count, plural, one {# đéþóšíţ} other {# đéþóšíţš}}');
    expect(out).toContain('{time}');
    expect(out).toContain('<b>ĺáţé</b>');
    expect(out).not.toMatch(/waiting/);
  });
});
