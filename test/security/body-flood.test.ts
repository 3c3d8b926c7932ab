import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

/**
 * A chunked multipart body (no Content-Length) made of many 1 MiB fields used to
 * be read whole — 1,200 fields took the server from 267 MB to 1.5 GB — and answered 400
 * afterwards. The bytes actually read now count against the 1 MiB body limit, whatever the
 * content type, and the 413 comes as soon as the limit is passed.
 */
describe('chunked multipart flood to POST /api/v1/checkout/cash-slips', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it('answers 413 PAYLOAD_TOO_LARGE in the envelope before the body is all sent, without buffering it', async () => {
    const boundary = 'flood';
    const FIELDS = 64; // 64 MiB planned; the limit is 1 MiB
    const field = (i: number) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${'x'.repeat(1 << 20)}\r\n`);
    const rssBefore = process.memoryUsage().rss;

    const result = await new Promise<{ status: number; body: string; fieldsSent: number }>((resolve, reject) => {
      let fieldsSent = 0;
      let answered = false;
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/checkout/cash-slips',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), fieldsSent });
          req.destroy();
        });
      });
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      const pump = () => {
        while (!answered && fieldsSent < FIELDS) {
          fieldsSent++;
          if (!req.write(field(fieldsSent))) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered) req.end(`--${boundary}--\r\n`);
      };
      pump();
    });

    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1 MiB'), request_id: expect.any(String) } });
    // The answer came while most of the planned body was still unsent.
    expect(result.fieldsSent).toBeLessThan(FIELDS);
    // Far below the 64 MiB offered (generous allowance for the test runner's own churn).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(48 * 1024 * 1024);
  });
});
