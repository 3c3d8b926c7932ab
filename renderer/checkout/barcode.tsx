import { useEffect, useState } from 'react';

type Symbology = 'code128' | 'qrcode';

/**
 * A barcode drawn as SVG by bwip-js in the browser. The library (~2 MB of PostScript compiled to JS)
 * is loaded on first use only, so payers who never open a cash slip never download it.
 * The encoded text is passed as barcode data, never as markup; the SVG bwip-js returns contains
 * only paths (no human-readable text, which the slip prints itself).
 */
export function Barcode({ kind, value, label, className }: { kind: Symbology; value: string; label: string; className?: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let cancelled = false;
    setSvg(null);
    setFailed(false);
    import('bwip-js/browser')
      .then((bwip) => {
        if (cancelled) return;
        const out =
          kind === 'qrcode'
            ? bwip.toSVG({ bcid: 'qrcode', text: value, scale: 4, eclevel: 'M', paddingwidth: 0, paddingheight: 0 } as Parameters<typeof bwip.toSVG>[0])
            : bwip.toSVG({ bcid: 'code128', text: value, scale: 2, height: 14, includetext: false, paddingwidth: 0, paddingheight: 0 } as Parameters<typeof bwip.toSVG>[0]);
        // Bars may stretch vertically (only their widths carry data); the QR code keeps its square.
        setSvg(kind === 'code128' ? out.replace('<svg ', '<svg preserveAspectRatio="none" ') : out);
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
      <div className={`${cls} barcode-failed`} role="img" aria-label={`${label} could not be drawn`}>
        Code unavailable: quote the reference instead.
      </div>
    );
  }
  if (!svg) return <div className={`${cls} barcode-loading`} role="img" aria-label={`${label} loading`} aria-busy="true" />;
  return <div className={cls} role="img" aria-label={label} data-testid={`barcode-${kind}`} dangerouslySetInnerHTML={{ __html: svg }} />;
}
