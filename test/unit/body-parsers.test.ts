import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody } from '../../server/http/body-parsers';

describe('jsonDepthExceeds', () => {
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it('counts arrays and objects, and stops at the limit', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)).toBe(true);
    expect(jsonDepthExceeds(`[${Array.from({ length: 5000 }, () => '[1]').join(',')}]`)).toBe(false); // wide, not deep
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ a: `${'['.repeat(500)}"\\${'{'.repeat(500)}`, b: '\\' });
    expect(jsonDepthExceeds(inString)).toBe(false);
    expect(parseJsonBody(inString)).toEqual(JSON.parse(inString));
  });
});

describe('parseJsonBody', () => {
  it('refuses a __proto__ key naming its holder, and leaves other keys alone', () => {
    expect(() => parseJsonBody('{"metadata":{"__proto__":1}}')).toThrow('metadata: key "__proto__" is not allowed');
    expect(() => parseJsonBody('{"lines":[{},{"x":{"\\u005f_proto__":1}}]}')).toThrow('lines[1].x: key "__proto__" is not allowed');
    expect(parseJsonBody('{"metadata":{"constructor":"ok","proto":1}}')).toEqual({ metadata: { constructor: 'ok', proto: 1 } });
  });

  it('answers malformed JSON with its own message, never the parser’s', () => {
    expect(() => parseJsonBody('{"a":')).toThrow(/^body: malformed JSON$/);
  });
});
