import { useEffect, useState } from 'react';
import { useT } from '../ui/i18n';

type Symbology = 'code128' | 'qrcode';

const loadQr = () => import('qrcode');
const loadCode128 = () => import('jsbarcode');

/**
 * Starts loading both libraries without drawing anything: the cash screen calls it when it
 * opens, so they arrive while the payer reads the steps and the slip shows its codes at once.
 */
export function preloadBarcodes(): void {
  void loadQr().catch(() => undefined);
  void loadCode128().catch(() => undefined);
}

/**
 * The SVG markup of one code: the QR code by `qrcode` (error correction M, no margin: the slip
 * leaves white around it), the Code 128 barcode by `jsbarcode`, drawn on a detached SVG element
 * and serialized. Each library is its own chunk, loaded on first use only (about 23 kB
 * compressed together), so a payer who never opens a cash slip never downloads them.
 */
async function drawSvg(kind: Symbology, value: string): Promise<string> {
  if (kind === 'qrcode') {
    const { toString } = await loadQr();
    return toString(value, { type: 'svg', errorCorrectionLevel: 'M', margin: 0 });
  }
  const { default: JsBarcode } = await loadCode128();
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  JsBarcode(svg, value, { format: 'CODE128', width: 2, height: 56, margin: 0, displayValue: false, background: '#ffffff', lineColor: '#000000' });
  // Bars may stretch vertically (only their widths carry data); the QR code keeps its square.
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  return svg.outerHTML;
}

/**
 * A barcode drawn as SVG in the browser. The encoded text is passed as barcode data, never as
 * markup; the SVG either library returns holds only shapes (no human-readable text, which the
 * slip prints itself).
 */
export function Barcode({ kind, value, label, className }: { kind: Symbology; value: string; label: string; className?: string }) {
  const t = useT();
  const [svg, setSvg] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let cancelled = false;
    setSvg(null);
    setFailed(false);
    drawSvg(kind, value)
      .then((out) => {
        if (!cancelled) setSvg(out);
      })
      .catch(() => {
        if (!cancelled) setFailed(true);
      });
    return () => {
      cancelled = true;
    };
  }, [kind, value]);

  const cls = `barcode barcode-${kind}${className ? ` ${className}` : ''}`;
  if (failed) {
    return (
      <div className={`${cls} barcode-failed`} role="img" aria-label={t('checkout.barcode.failedLabel', { code: label })}>
        {t('checkout.barcode.failed')}
      </div>
    );
  }
  if (!svg) return <div className={`${cls} barcode-loading`} role="img" aria-label={t('checkout.barcode.loadingLabel', { code: label })} aria-busy="true" />;
  return <div className={cls} role="img" aria-label={label} data-testid={`barcode-${kind}`} dangerouslySetInnerHTML={{ __html: svg }} />;
}
