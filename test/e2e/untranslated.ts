import type { Page } from '@playwright/test';

/**
 * What a page shows that is not a message, read in the pseudo-locale (`?lang=pseudo`): every
 * message then arrives as `⟦Ţéẋţ⟧`, so letters left outside the brackets came from a string in a
 * component. Skipped: elements marked `translate="no"` (user data, ids, codes), `<time>` (dates
 * written by Intl in the page's locale) and three-letter currency codes. Attribute text a person
 * hears or sees (aria-label, title, placeholder, alt) is checked too.
 */
export async function untranslatedText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const strip = (text: string): string => {
      let out = text;
      // Innermost first, so a message given as another's argument is removed with it.
      for (let prev = ''; prev !== out; ) {
        prev = out;
        out = out.replace(/⟦[^⟦⟧]*⟧/g, ' ');
      }
      return out.replace(/\b[A-Z]{3}\b/g, ' ');
    };
    const leftovers = (text: string): string | null => {
      const rest = strip(text).replace(/\s+/g, ' ').trim();
      return /\p{L}{2,}/u.test(rest) ? rest : null;
    };
    const found: string[] = [];
    const clone = document.body.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('[translate="no"], time, script, style, noscript, template').forEach((el) => el.remove());
    // Block-level boundaries: read element by element so one leftover names its place.
    for (const el of Array.from(clone.querySelectorAll('*'))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? '')
        .join('');
      if (!own.trim()) continue;
      // A text node inside a message's rich-text tag (⟦…<b>x</b>…⟧) is judged with its parent's text.
      const context = el.parentElement?.textContent ?? '';
      const inside = /⟦[^⟧]*$/.test(context.slice(0, context.indexOf(own))) && context.indexOf(own) >= 0;
      if (inside) continue;
      const rest = leftovers(own);
      if (rest) found.push(`<${el.tagName.toLowerCase()}> ${rest}`);
    }
    for (const el of Array.from(document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]'))) {
      if (el.closest('[translate="no"]')) continue;
      for (const attr of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = el.getAttribute(attr);
        const rest = value ? leftovers(value) : null;
        if (rest) found.push(`[${attr}] ${rest}`);
      }
    }
    return found;
  });
}
