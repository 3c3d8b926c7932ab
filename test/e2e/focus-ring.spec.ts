import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { checkoutPath, createSession, viewportOf } from './support';

/**
 * The keyboard focus on the payer's pages is a ring that stands out: at least 3:1 against what it
 * sits on (WCAG 1.4.11, non-text contrast), for every control reached with Tab on the method
 * picker and the card form, in the light and the dark theme, at 390 px and 1366 px. The first Tab reaches the skip link.
 */
test.skip(({ isMobile }) => isMobile, 'both widths are set here, from the desktop project');

/**
 * The focused control's ring (its outline when it has one, else the outermost ring of its
 * box-shadow, blended over what it sits on when translucent), once any transition has run,
 * against the background around it: the nearest ancestor's opaque background and the gap ring
 * inside it. `ratio` 0: no ring.
 */
function focusedRing(page: Page): Promise<{ control: string; ratio: number }> {
  return page.evaluate(async () => {
    const el = document.activeElement as HTMLElement;
    // The ring as it settles: a control may fade its shadow in (a CSS transition).
    await Promise.all(el.getAnimations().map((a) => a.finished.catch(() => undefined)));
    const rgba = (c: string): number[] => {
      const n = (c.match(/[\d.]+/g) ?? []).map(Number);
      return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0, n[3] ?? 1];
    };
    const over = (top: number[], under: number[]) => top.slice(0, 3).map((v, i) => v * top[3]! + under[i]! * (1 - top[3]!));
    const luminance = (rgb: number[]) => {
      const [r, g, b] = rgb.map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const contrast = (a: number[], b: number[]) => {
      const [x, y] = [luminance(a), luminance(b)];
      return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
    };
    const control = `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}"`;
    let around = rgba(matchMedia('(prefers-color-scheme: dark)').matches ? 'rgb(0, 0, 0)' : 'rgb(255, 255, 255)');
    for (let a = el.parentElement; a; a = a.parentElement) {
      const bg = rgba(getComputedStyle(a).backgroundColor);
      if (bg[3] === 1) {
        around = bg;
        break;
      }
    }
    const style = getComputedStyle(el);
    const backgrounds = [around];
    let ring: number[] | undefined;
    if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) ring = rgba(style.outlineColor);
    else if (style.boxShadow !== 'none') {
      const colours = (style.boxShadow.match(/rgba?\([^)]*\)/g) ?? []).map(rgba);
      ring = colours.at(-1);
      // A gap ring inside it (the surface colour) is what the ring meets on its inner edge.
      if (colours.length > 1 && colours[0]![3] === 1) backgrounds.push(colours[0]!);
    }
    if (!ring) return { control, ratio: 0 };
    const seen = ring[3]! < 1 ? over(ring, around) : ring.slice(0, 3);
    return { control, ratio: Math.min(...backgrounds.map((b) => contrast(seen, b.slice(0, 3)))) };
  });
}

/** The focused control, when its ring is under 3:1. */
async function weakRing(page: Page): Promise<string[]> {
  const { control, ratio } = await focusedRing(page);
  return ratio < 3 ? [`${control}: ${ratio.toFixed(2)}:1`] : [];
}

/** Tabs `presses` times from where the focus is, noting every control whose ring is under 3:1. */
async function weakRings(page: Page, presses: number): Promise<string[]> {
  const weak: string[] = [];
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement === document.body)) continue;
    weak.push(...(await weakRing(page)));
  }
  return weak;
}

test('every control the payer reaches with Tab shows a focus ring of at least 3:1, light and dark, at 390 and 1366 px', async ({ page }) => {
  const session = await createSession();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [390, 1366]) {
      await page.setViewportSize(viewportOf(width));
      await page.goto(checkoutPath(session));
      await expect(page.getByRole('button', { name: /^Card/ })).toBeVisible();
      // The skip link first, then the language and the methods.
      await page.keyboard.press('Tab');
      await expect(page.getByRole('link', { name: 'Skip to payment' })).toBeFocused();
      expect([...(await weakRing(page)), ...(await weakRings(page, 7))], `${colorScheme}, ${width} px: method picker`).toEqual([]);
      await page.getByRole('button', { name: /^Card/ }).click();
      await expect(page.getByLabel('Card number')).toBeVisible();
      // The card form's fields and buttons.
      await page.getByLabel('Card number').focus();
      expect(await weakRings(page, 5), `${colorScheme}, ${width} px: card form`).toEqual([]);
    }
  }
});
