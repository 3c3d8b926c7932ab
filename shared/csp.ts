/**
 * The Content-Security-Policy of every Paydesk page (back office and hosted checkout): sent by
 * the server with each page (server/http/pages.ts) and enforced again by the desktop window
 * (electron/main/response-headers.ts). Scripts, styles and connections come from the app's own
 * origin only; barcodes and camera frames may be data:/blob: URLs.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self' blob:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
