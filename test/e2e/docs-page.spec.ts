import { expect, test } from './fixtures';

/** /docs runs under its own CSP; Swagger UI must still work under it. */
test('Swagger UI at /docs renders under its Content-Security-Policy without a violation', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Refused to: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto('/docs/');
  expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res?.headers()['x-frame-options']).toBe('DENY');
  // Swagger UI parses and renders the whole 216 KB document before its first heading: about 5 s
  // alone on a 2-core machine, 14 s beside a second browser, and past the default 10 s in CI while
  // the axe scans run. This test is about the CSP, not render speed, so it waits longer.
  await expect(page.getByRole('heading', { name: /Paydesk merchant checkout and invoicing API/ })).toBeVisible({ timeout: 40_000 });
  await expect(page.getByText('/api/v1/sessions', { exact: true }).first()).toBeVisible();
  expect(violations).toEqual([]);
});
