import { createRequire } from 'node:module';
import type { BrowserContext, Locator } from '@playwright/test';

// ZXing (the cash desk's camera reader, renderer/backoffice/features/cash-desk/camera-scanner.tsx)
// is CommonJS to Node: its classes are on the module object, not Node's named ESM exports.
const zxing = createRequire(import.meta.url)('@zxing/library') as typeof import('@zxing/library');

type Kind = 'qrcode' | 'code128';

/**
 * The text a code on the page carries, read back as a scanner would: the code's SVG, as the page
 * shows (or prints) it, drawn onto a canvas at a printer's resolution with a white quiet zone
 * around it (in a blank page of the same browser, out of the checkout's CSP), then decoded by ZXing
 * in the test, asked for that one format.
 */
export async function readCode(context: BrowserContext, code: Locator, kind: Kind): Promise<string> {
  const svg = await code.locator('svg').evaluate((el) => new XMLSerializer().serializeToString(el));
  // QR: 8 px a module over ~29 modules; Code 128: 3 px a module over ~430 modules, 200 px high.
  const [width, height] = kind === 'qrcode' ? [240, 240] : [1300, 200];
  const canvasPage = await context.newPage();
  try {
    const { pixels, w, h } = await canvasPage.evaluate(
      async ({ svg, width, height }) => {
        const img = new Image();
        img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
        await img.decode();
        const pad = Math.round(Math.max(width, height) * 0.1);
        const canvas = document.createElement('canvas');
        canvas.width = width + 2 * pad;
        canvas.height = height + 2 * pad;
        const ctx = canvas.getContext('2d')!;
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        ctx.drawImage(img, pad, pad, width, height);
        const rgba = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        const grey: number[] = [];
        for (let i = 0; i < rgba.length; i += 4) grey.push(Math.round(0.299 * rgba[i]! + 0.587 * rgba[i + 1]! + 0.114 * rgba[i + 2]!));
        return { pixels: grey, w: canvas.width, h: canvas.height };
      },
      { svg, width, height },
    );
    const source = new zxing.RGBLuminanceSource(Uint8ClampedArray.from(pixels), w, h);
    const reader = new zxing.MultiFormatReader();
    const hints = new Map<import('@zxing/library').DecodeHintType, unknown>([
      [zxing.DecodeHintType.POSSIBLE_FORMATS, [kind === 'qrcode' ? zxing.BarcodeFormat.QR_CODE : zxing.BarcodeFormat.CODE_128]],
      [zxing.DecodeHintType.TRY_HARDER, true],
    ]);
    return reader.decode(new zxing.BinaryBitmap(new zxing.HybridBinarizer(source)), hints).getText();
  } finally {
    await canvasPage.close();
  }
}
