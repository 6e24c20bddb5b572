import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonShapeRefusal } from '../../main/platform/json-shape.js';

/** The nesting depth of a parsed value, measured independently (recursion is fine on test values). */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

describe('jsonShapeRefusal', () => {
  it('refuses an array nested 8,000 deep inside a small callback body, without parsing it', () => {
    const body = `{"event":"transaction.completed","payload":{"x":${'['.repeat(8000)}${']'.repeat(8000)}}}`;
    expect(jsonShapeRefusal(body, { maxDepth: 16 })).toEqual({
      reason: 'too_deep',
      message: 'the JSON is nested more than 16 levels deep',
    });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ note: '[[[[{{{{ "\\" [[[[', list: [1, [2]] });
    expect(jsonShapeRefusal(text, { maxDepth: 3 })).toBeNull();
    expect(jsonShapeRefusal(text, { maxDepth: 2 })?.reason).toBe('too_deep');
  });

  it('refuses a text past its size in UTF-8 bytes, not characters', () => {
    const text = JSON.stringify({ name: 'é'.repeat(40) }); // 51 characters, 91 bytes
    expect(jsonShapeRefusal(text, { maxDepth: 4, maxBytes: 90 })?.reason).toBe('too_large');
    expect(jsonShapeRefusal(text, { maxDepth: 4, maxBytes: 91 })).toBeNull();
  });

  it('agrees with the parsed depth of any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 1, max: 12 }), (value, max) => {
        const refused = jsonShapeRefusal(JSON.stringify(value), { maxDepth: max }) !== null;
        expect(refused).toBe(depthOf(value) > max);
      }),
      { numRuns: 500, seed: 42 },
    );
  });
});
