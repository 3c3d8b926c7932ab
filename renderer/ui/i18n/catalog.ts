import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

import type { Language } from './locale';

/** English messages and their French, key for key (TypeScript refuses a missing key). */
export interface Catalog<K extends string = string> {
  en: Record<K, string>;
  fr: Record<K, string>;
}

/** One feature's messages. Ids are `<feature>.<thing>`, unique across an app. */
export function defineMessages<const E extends Record<string, string>>(catalog: {
  en: E;
  fr: { [K in keyof E]: string };
}): Catalog<Extract<keyof E, string>> {
  return catalog as Catalog<Extract<keyof E, string>>;
}

/** An app's catalogue: every feature's messages in one table per language. Duplicate ids throw. */
export function mergeCatalogs(parts: readonly Catalog[]): Catalog {
  const merged: Catalog = { en: {}, fr: {} };
  for (const part of parts) {
    for (const id of Object.keys(part.en)) {
      if (id in merged.en) throw new Error(`message id ${id} is defined twice`);
    }
    Object.assign(merged.en, part.en);
    Object.assign(merged.fr, part.fr);
  }
  return merged;
}

const ACCENTED: Record<string, string> = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'đ', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'í', j: 'ĵ', k: 'ķ', l: 'ĺ', m: 'ɱ',
  n: 'ñ', o: 'ó', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'ú', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Á', B: 'Ɓ', C: 'Ç', D: 'Đ', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Í', J: 'Ĵ', K: 'Ķ', L: 'Ĺ', M: 'Ṁ',
  N: 'Ñ', O: 'Ó', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Ú', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};

/** Marks around every pseudo-locale message: text on a screen outside them is not a message. */
const PSEUDO_OPEN = '⟦';
const PSEUDO_CLOSE = '⟧';

function accent(text: string): string {
  return text.replace(/[A-Za-z]/g, (ch) => ACCENTED[ch] ?? ch);
}

function printElements(elements: MessageFormatElement[]): string {
  return elements.map(printElement).join('');
}

function escapeLiteral(text: string): string {
  return text.replace(/'/g, "''").replace(/([{}])/g, "'$1'");
}

function printElement(el: MessageFormatElement): string {
  switch (el.type) {
    case TYPE.literal:
      return escapeLiteral(accent(el.value));
    case TYPE.argument:
      return `{${el.value}}`;
    case TYPE.number:
    case TYPE.date:
    case TYPE.time: {
      const kind = el.type === TYPE.number ? 'number' : el.type === TYPE.date ? 'date' : 'time';
      const style = typeof el.style === 'string' ? `, ${el.style}` : '';
      return `{${el.value}, ${kind}${style}}`;
    }
    case TYPE.select:
    case TYPE.plural: {
      const kind = el.type === TYPE.select ? 'select' : el.pluralType === 'ordinal' ? 'selectordinal' : 'plural';
      const offset = el.type === TYPE.plural && el.offset ? ` offset:${el.offset}` : '';
      const options = Object.entries(el.options)
        .map(([key, opt]) => `${key} {${printElements(opt.value)}}`)
        .join(' ');
      return `{${el.value}, ${kind},${offset} ${options}}`;
    }
    case TYPE.pound:
      return '#';
    case TYPE.tag:
      return `<${el.value}>${printElements(el.children)}</${el.value}>`;
    default:
      return '';
  }
}

/** The pseudo-locale form of a message: letters accented, placeholders kept, brackets around. */
export function pseudoMessage(message: string): string {
  const ast = parse(message, { ignoreTag: false });
  return `${PSEUDO_OPEN}${printElements(ast)}${PSEUDO_CLOSE}`;
}

/** The table a provider is given for a language (pseudo: English, transformed). */
export function messagesFor(catalog: Catalog, language: Language | 'pseudo'): Record<string, string> {
  if (language !== 'pseudo') return catalog[language];
  return Object.fromEntries(Object.entries(catalog.en).map(([id, text]) => [id, pseudoMessage(text)]));
}
