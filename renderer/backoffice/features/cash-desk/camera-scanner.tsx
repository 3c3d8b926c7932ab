import { useEffect, useRef, useState } from 'react';
import { useT } from '../../../ui/i18n';

/** The parts of the Shape Detection API used here (not in TypeScript's DOM library yet). */
interface DetectedBarcode {
  rawValue: string;
}
interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<DetectedBarcode[]>;
}
type BarcodeDetectorCtor = new (opts: { formats: string[] }) => BarcodeDetectorLike;

const SLIP_TOKEN = /^slp_[A-Za-z0-9]{8,64}$/;

/** An error of this scanner's own, named so the screen words it in the reader's language. */
const failure = (name: 'NoCameraError' | 'CannotReadError'): Error => Object.assign(new Error(name), { name });

/** Reads the barcodes in the video's current frame; throws when the frame cannot be read (yet). */
type FrameReader = (source: HTMLVideoElement) => Promise<string[]>;

/** The browser's own BarcodeDetector (Chromium on most platforms), or null where it does not exist. */
function builtInReader(): FrameReader | null {
  const Detector = (window as unknown as { BarcodeDetector?: BarcodeDetectorCtor }).BarcodeDetector;
  if (!Detector) return null;
  const detector = new Detector({ formats: ['qr_code', 'code_128'] });
  return async (source) => (await detector.detect(source)).map((b) => b.rawValue);
}

/**
 * The sizes a frame is given to ZXing at, in turn, until one reads. ZXing's detector misjudges the
 * QR codes of about 1 slip token in 20 when a module is several camera pixels wide (a slip held
 * close), whatever the code's place in the frame, and reads most of those from a smaller copy.
 * Measured on 200 such codes at 8 pixels a module, drawn as test/e2e/qr-video.ts draws them: a
 * half- or third-size copy read 184 of them, and with a quarter-size one too, 196. A camera that
 * holds still shows the same frame over and over, so without these such a slip never scanned
 * (the likely cause of the camera e2e test's failures in CI). A frame without a code costs ~1.4 full
 * decodes instead of one.
 */
const ZXING_SCALES = [1, 1 / 2, 1 / 3, 1 / 4];

/**
 * @zxing/browser, loaded on first use, asked for the two formats a slip carries only (every other
 * format it would try on each frame costs a teller's laptop CPU). Each frame is copied to a
 * canvas and decoded there, at each of ZXING_SCALES until one reads; a frame without a code
 * throws, as a frame not ready yet does.
 */
async function zxingReader(): Promise<FrameReader> {
  const { BarcodeFormat, BrowserMultiFormatReader } = await import('@zxing/browser');
  const reader = new BrowserMultiFormatReader();
  reader.possibleFormats = [BarcodeFormat.QR_CODE, BarcodeFormat.CODE_128];
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw failure('CannotReadError');
  return async (source) => {
    let lastError: unknown;
    for (const scale of ZXING_SCALES) {
      [canvas.width, canvas.height] = [Math.round(source.videoWidth * scale), Math.round(source.videoHeight * scale)];
      context.drawImage(source, 0, 0, canvas.width, canvas.height);
      try {
        return [reader.decodeFromCanvas(canvas).getText()];
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  };
}

/**
 * Reads a slip's QR code or Code 128 barcode from the camera: the browser's BarcodeDetector, else
 * ZXing. Every 200 ms the current frame is read once the video has one; a frame that cannot be
 * read (the camera warming up, a code half in view, a reader error) is skipped and the next one
 * tried, so nothing but Close stops the scan. (ZXing's own scan loop stopped for good on the
 * first error that was not "no code here", such as a frame drawn before the video had a size.)
 * Only values shaped like a slip token are accepted, so a stray barcode in view (a product, a
 * banknote) is ignored.
 */
export function CameraScanner({ onDetected, onClose }: { onDetected: (token: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [status, setStatus] = useState<'starting' | 'scanning' | 'error'>('starting');
  const [message, setMessage] = useState('');
  const [engine, setEngine] = useState('');
  const t = useT();
  const done = useRef(false);

  useEffect(() => {
    let stream: MediaStream | null = null;
    let timer: number | undefined;
    let cancelled = false;
    const accept = (text: string) => {
      const value = text.trim();
      if (done.current || !SLIP_TOKEN.test(value)) return;
      done.current = true;
      onDetected(value);
    };
    (async () => {
      if (!navigator.mediaDevices?.getUserMedia) throw failure('NoCameraError');
      const builtIn = builtInReader();
      const read = builtIn ?? (await zxingReader());
      if (cancelled) return;
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      // Closed while the camera was starting: the cleanup below ran before there was a stream to stop.
      if (cancelled || !video.current) return stream.getTracks().forEach((t) => t.stop());
      video.current.srcObject = stream;
      await video.current.play();
      setEngine(builtIn ? t('cashDesk.camera.builtIn') : 'ZXing');
      setStatus('scanning');
      const tick = async () => {
        const v = video.current;
        if (cancelled || !v) return;
        if (v.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA && v.videoWidth > 0) {
          try {
            for (const value of await read(v)) accept(value);
          } catch {
            // No code in this frame, or it could not be read: try the next one.
          }
        }
        if (!done.current && !cancelled) timer = window.setTimeout(() => void tick(), 200);
      };
      void tick();
    })().catch((err: unknown) => {
      if (cancelled) return;
      setStatus('error');
      const name = err instanceof Error ? err.name : '';
      setMessage(
        name === 'NotAllowedError'
          ? t('cashDesk.camera.refused')
          : name === 'NotFoundError'
            ? t('cashDesk.camera.notFound')
            : name === 'NoCameraError'
              ? t('cashDesk.camera.noCamera')
              : name === 'CannotReadError'
                ? t('cashDesk.camera.cannotRead')
                : err instanceof Error
                  ? err.message
                  : t('cashDesk.camera.failed'),
      );
    });
    return () => {
      cancelled = true;
      if (timer) window.clearTimeout(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [onDetected, t]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="cd-camera" data-testid="camera-scanner">
      <video ref={video} className="cd-camera__video" muted playsInline aria-label={t('cashDesk.camera.view')} />
      <div className="cd-camera__bar">
        <span role="status">
          {status === 'starting' && t('cashDesk.camera.starting')}
          {status === 'scanning' && t('cashDesk.camera.scanning', { engine })}
          {status === 'error' && message}
        </span>
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
          {t('cashDesk.camera.close')}
        </button>
      </div>
    </div>
  );
}
