// What the Chromium shell sends its window: JSON text when JSON gives the value back unchanged, else the
// value itself for Playwright to serialise as before (a Date must stay a Date, NaN NaN, an array's holes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asWireText } from '../../main/shell/wire.js';

describe('asWireText', () => {
  it('sends plain data as JSON text that parses back to the same value', () => {
    const answer = {
      ok: true,
      value: {
        rows: [{ id: 7, reference: 'MD-1', amount: '1500.50', status: 'paid', note: null, flags: [true, false] }],
        total: 1,
      },
    };
    const text = asWireText(answer);
    expect(typeof text).toBe('string');
    expect(JSON.parse(text as string)).toEqual(answer);
    // Any JSON value: the text parses back to it; only one holding a -0 (JSON would make it 0) goes as is.
    const hasNegativeZero = (v: unknown): boolean =>
      Object.is(v, -0) || (typeof v === 'object' && v !== null && Object.values(v).some(hasNegativeZero));
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const t = asWireText(v);
        if (hasNegativeZero(v)) expect(t).toBe(v);
        else expect(JSON.parse(t as string)).toStrictEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 2000 },
    );
    // The case that found it: fast-check's JSON values include -0.
    expect(asWireText([{ '': [-0] }])).toEqual([{ '': [-0] }]);
  });

  it('drops only undefined fields, which read the same', () => {
    expect(JSON.parse(asWireText({ a: 1, b: undefined }) as string)).toEqual({ a: 1 });
  });

  it('keeps as a value what JSON would change', () => {
    for (const v of [
      { at: new Date(0) },
      { n: NaN },
      { n: Infinity },
      { n: -0 },
      [1, undefined, 2],
      { m: new Map([[1, 2]]) },
      { b: Buffer.from('x') },
      { big: 1n },
    ])
      expect(asWireText(v)).toBe(v);
  });
});
