// The canonical text is hashed into every callback's dedupe key: a faster canonicalJson must write the
// very same text as the first one did, or a retry of a stored callback would be stored again.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../main/callbacks/ingest.js';

function original(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(original).join(',') + ']';
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return (
      '{' +
      Object.keys(o)
        .sort()
        .map((k) => JSON.stringify(k) + ':' + original(o[k]))
        .join(',') +
      '}'
    );
  }
  return JSON.stringify(v) ?? 'null';
}

describe('canonicalJson', () => {
  it.each([
    ['a callback', { payload: { b: 1, a: 'x', c: [3, { z: null, y: true }] }, event: 'transaction.completed' }],
    ['empty containers', { a: {}, b: [], c: [[]] }],
    ['undefined and escapes', { 'k"ey': 'v\n\u2028', u: undefined, n: -0.5e-7, arr: [undefined, 1] }],
    ['primitives', 'text'],
    ['null', null],
    ['unicode keys', { é: 1, e: 2, Z: 3, '10': 4, '9': 5 }],
  ])('writes the same text as before: %s', (_name, v) => {
    expect(canonicalJson(v)).toBe(original(v));
  });
  it('writes the same text for keys seen before, and for more distinct keys than it remembers', () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k"${i}\n`, { [`inner ${i}`]: i }]));
    expect(canonicalJson(many)).toBe(original(many));
    expect(canonicalJson(many)).toBe(original(many));
    const body = { payload: { b: 1, a: 'x' }, event: 'e' };
    for (let i = 0; i < 3; i++) expect(canonicalJson(body)).toBe('{"event":"e","payload":{"a":"x","b":1}}');
  });
  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: [{ f: 1, e: 2 }] })).toBe('{"a":[{"e":2,"f":1}],"b":{"c":2,"d":1}}');
  });
});
