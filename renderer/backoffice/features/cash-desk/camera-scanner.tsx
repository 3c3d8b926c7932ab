import { useEffect, useRef, useState } from 'react';

/** The parts of the Shape Detection API used here (not in TypeScript's DOM library yet). */
interface DetectedBarcode {
  rawValue: string;
}
interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<DetectedBarcode[]>;
}
type BarcodeDetectorCtor = new (opts: { formats: string[] }) => BarcodeDetectorLike;

const SLIP_TOKEN = /^slp_[A-Za-z0-9]{8,64}$/;

/**
 * Reads a slip's QR code or Code 128 barcode from the camera. Uses the browser's own
 * BarcodeDetector where it exists (Chromium on most platforms), else @zxing/browser, loaded
 * on first use. Only values shaped like a slip token are accepted, so a stray barcode in view
 * (a product, a banknote) is ignored.
 */
export function CameraScanner({ onDetected, onClose }: { onDetected: (token: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [status, setStatus] = useState<'starting' | 'scanning' | 'error'>('starting');
  const [message, setMessage] = useState('');
  const [engine, setEngine] = useState('');
  const done = useRef(false);

  useEffect(() => {
    let stream: MediaStream | null = null;
    let timer: number | undefined;
    let stopZxing: (() => void) | undefined;
    let cancelled = false;
    const accept = (text: string) => {
      const value = text.trim();
      if (done.current || !SLIP_TOKEN.test(value)) return;
      done.current = true;
      onDetected(value);
    };
    (async () => {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('This device offers no camera to the back office.');
      const Detector = (window as unknown as { BarcodeDetector?: BarcodeDetectorCtor }).BarcodeDetector;
      if (Detector) {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
        if (cancelled || !video.current) return;
        video.current.srcObject = stream;
        await video.current.play();
        const detector = new Detector({ formats: ['qr_code', 'code_128'] });
        setEngine('built-in barcode detector');
        setStatus('scanning');
        const tick = async () => {
          if (cancelled || !video.current) return;
          try {
            const found = await detector.detect(video.current);
            for (const b of found) accept(b.rawValue);
          } catch {
            // A frame that cannot be read yet (camera warming up): try the next one.
          }
          if (!done.current && !cancelled) timer = window.setTimeout(() => void tick(), 200);
        };
        void tick();
        return;
      }
      const { BrowserMultiFormatReader } = await import('@zxing/browser');
      if (cancelled || !video.current) return;
      const reader = new BrowserMultiFormatReader();
      setEngine('ZXing');
      const controls = await reader.decodeFromConstraints({ video: { facingMode: 'environment' }, audio: false }, video.current, (result) => {
        if (result) accept(result.getText());
      });
      stopZxing = () => controls.stop();
      if (cancelled) stopZxing();
      else setStatus('scanning');
    })().catch((err: unknown) => {
      if (cancelled) return;
      setStatus('error');
      const name = err instanceof Error ? err.name : '';
      setMessage(
        name === 'NotAllowedError'
          ? 'Camera access was refused. Allow the camera for Paydesk, or use the scanner or keyboard.'
          : name === 'NotFoundError'
            ? 'No camera was found. Use the barcode scanner or type the token.'
            : err instanceof Error
              ? err.message
              : 'The camera could not be started.',
      );
    });
    return () => {
      cancelled = true;
      if (timer) window.clearTimeout(timer);
      stopZxing?.();
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [onDetected]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="cd-camera" data-testid="camera-scanner">
      <video ref={video} className="cd-camera__video" muted playsInline aria-label="Camera view" />
      <div className="cd-camera__bar">
        <span role="status">
          {status === 'starting' && 'Starting the camera…'}
          {status === 'scanning' && `Hold the slip's QR code or barcode in view (${engine}).`}
          {status === 'error' && message}
        </span>
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
          Close camera
        </button>
      </div>
    </div>
  );
}
