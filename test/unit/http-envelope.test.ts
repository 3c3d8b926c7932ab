import { describe, expect, it } from 'vitest';
import { parseJsonBody, readErrorEnvelope } from '../../shared/http-envelope';

describe('the error envelope, read one way by both front ends', () => {
  it('reads code, message and retry seconds from an envelope', () => {
    const data = parseJsonBody('{"error":{"code":"RATE_LIMITED","message":"slow down","retry_after_seconds":7}}');
    expect(readErrorEnvelope(data)).toEqual({ code: 'RATE_LIMITED', message: 'slow down', retryAfterSeconds: 7 });
  });

  it('leaves out fields that are absent or of the wrong type', () => {
    expect(readErrorEnvelope({ error: { code: 42, message: 'x' } })).toEqual({ code: null, message: 'x', retryAfterSeconds: null });
    expect(readErrorEnvelope(null)).toEqual({ code: null, message: null, retryAfterSeconds: null });
  });

  it('tells an empty body (null) from a body that is not JSON (undefined)', () => {
    expect(parseJsonBody('')).toBeNull();
    expect(parseJsonBody('<html>502</html>')).toBeUndefined();
    expect(parseJsonBody('{"ok":true}')).toEqual({ ok: true });
  });
});
