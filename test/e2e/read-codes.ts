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
 *
 * The SVG is drawn at a whole multiple of its own viewBox, with crisp edges, so every module
 * (QR square, Code 128 bar) covers whole pixels: a fractional scale smears bar edges into grey
 * columns, and whether ZXing then reads the code depends on the token's bar pattern.
 */
export async function readCode(context: BrowserContext, code: Locator, kind: Kind): Promise<string> {
  const drawn = await code.locator('svg').evaluate((el) => new XMLSerializer().serializeToString(el));
  const viewBox = /viewBox="\s*[\d.]+[\s,]+[\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"/.exec(drawn);
  if (!viewBox) throw new Error(`the ${kind} SVG has no viewBox`);
  const [vbWidth, vbHeight] = [Number(viewBox[1]), Number(viewBox[2])];
  // QR: at least 8 px a module, then 4, as a scanner sees a code nearer and further away. ZXing's
  // finder search misses some well-formed codes at one size and finds them at another (of 300
  // random slip tokens drawn perfectly, 13 unread at 9 px a module and 4 at 4 px, e.g.
  // slp_tdOCvtUh2MUPWImKBKq1yMicfstzc2kU at 9); the last try reads the clean render module by
  // module (PURE_BARCODE, every one of the 300), which still decodes the whole symbol and its
  // error correction. Code 128 (jsbarcode: 2 units a module): 4 px a module, 200 px high.
  const scales = kind === 'qrcode' ? [Math.ceil(240 / vbWidth), Math.ceil(120 / vbWidth)] : [Math.ceil(1300 / vbWidth)];
  const format = kind === 'qrcode' ? zxing.BarcodeFormat.QR_CODE : zxing.BarcodeFormat.CODE_128;
  const hints = new Map<import('@zxing/library').DecodeHintType, unknown>([
    [zxing.DecodeHintType.POSSIBLE_FORMATS, [format]],
    [zxing.DecodeHintType.TRY_HARDER, true],
  ]);
  const pure = new Map<import('@zxing/library').DecodeHintType, unknown>([
    [zxing.DecodeHintType.POSSIBLE_FORMATS, [format]],
    [zxing.DecodeHintType.PURE_BARCODE, true],
  ]);
  const canvasPage = await context.newPage();
  try {
    let first: unknown;
    for (const scale of scales) {
      const [width, height] = kind === 'qrcode' ? [vbWidth * scale, vbHeight * scale] : [vbWidth * scale, 200];
      const { pixels, w, h } = await canvasPage.evaluate(
        async ({ drawn, width, height }) => {
          const doc = new DOMParser().parseFromString(drawn, 'image/svg+xml');
          doc.documentElement.setAttribute('width', String(width));
          doc.documentElement.setAttribute('height', String(height));
          doc.documentElement.setAttribute('shape-rendering', 'crispEdges');
          const svg = new XMLSerializer().serializeToString(doc);
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
          // One grey byte a pixel, sent back as base64 (a number array of a million pixels is slow).
          let binary = '';
          for (let i = 0; i < rgba.length; i += 4) {
            binary += String.fromCharCode(Math.round(0.299 * rgba[i]! + 0.587 * rgba[i + 1]! + 0.114 * rgba[i + 2]!));
          }
          return { pixels: btoa(binary), w: canvas.width, h: canvas.height };
        },
        { drawn, width, height },
      );
      const source = new zxing.RGBLuminanceSource(new Uint8ClampedArray(Buffer.from(pixels, 'base64')), w, h);
      // As a scanner tries again on the next frame: the global-histogram binarizer when the local one
      // finds no code (it thresholds the whole image at once, which a clean render suits).
      const attempts: Array<[import('@zxing/library').Binarizer, typeof hints]> = [
        [new zxing.HybridBinarizer(source), hints],
        [new zxing.GlobalHistogramBinarizer(source), hints],
        ...(kind === 'qrcode' ? [[new zxing.HybridBinarizer(source), pure] as [import('@zxing/library').Binarizer, typeof hints]] : []),
      ];
      for (const [binarizer, using] of attempts) {
        try {
          return new zxing.MultiFormatReader().decode(new zxing.BinaryBitmap(binarizer), using).getText();
        } catch (err) {
          first ??= err;
        }
      }
    }
    throw first;
  } finally {
    await canvasPage.close();
  }
}
