import { writeFileSync } from 'node:fs';
import QRCode from 'qrcode';

/**
 * A camera that films a slip: a Y4M video (what Chromium's fake capture device plays) of the
 * slip token's QR code as the payer's page draws it (`qrcode`, error correction M), black
 * modules on white, 8 pixels each, centred in 640×480.
 */
export function qrVideo(text: string, file: string): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const code = { pixx: modules.size, pixy: modules.size, pixs: Array.from(modules.data) };
  const W = 640;
  const H = 480;
  const scale = 8;
  const y = Buffer.alloc(W * H, 235);
  const left = Math.floor((W - code.pixx * scale) / 2);
  const top = Math.floor((H - code.pixy * scale) / 2);
  for (let r = 0; r < code.pixy; r++) {
    for (let c = 0; c < code.pixx; c++) {
      if (!code.pixs[r * code.pixx + c]) continue;
      for (let dy = 0; dy < scale; dy++) y.fill(16, (top + r * scale + dy) * W + left + c * scale, (top + r * scale + dy) * W + left + (c + 1) * scale);
    }
  }
  const chroma = Buffer.alloc((W / 2) * (H / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, chroma]);
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${W} H${H} F5:1 Ip A1:1 C420jpeg\n`), ...Array.from({ length: 10 }, () => frame)]));
}
