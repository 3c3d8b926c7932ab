import { expect, test } from './fixtures';
import { STAFF_PASSWORD, TELLER } from './support';

/**
 * The back office is a desktop application and may weigh more than the payer's page, but the
 * camera scanner's library (ZXing, about 90 kB compressed) is loaded only when a teller opens
 * the camera, never with the cash desk itself.
 */
test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application');

test('the camera scanner library loads when the camera opens, not before', async ({ page }) => {
  const zxing: string[] = [];
  page.on('request', (r) => {
    if (/^\/assets\/zxing-[\w-]+\.js$/.test(new URL(r.url()).pathname)) zxing.push(r.url());
  });
  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(TELLER.username);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Cash desk', exact: true }).click();
  const open = page.getByRole('button', { name: 'Scan with the camera' });
  await expect(open).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(zxing, 'loaded before the camera was opened').toEqual([]);

  await open.click();
  // Where the browser reads barcodes itself (BarcodeDetector), ZXing is never needed.
  const builtIn = await page.evaluate(() => 'BarcodeDetector' in window);
  if (builtIn) expect(zxing).toEqual([]);
  else await expect.poll(() => zxing.length).toBe(1);
});
