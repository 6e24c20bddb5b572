// The service's values as they arrive on the wire, read liberally about form and strictly about meaning:
// amounts as numbers or strings (converted with their currency, never rounded), text that may be a
// number, booleans as true/false, "true"/"false", 1/0, currencies main/money knows. And parseWire, which
// turns zod's first issue into a WireFormatError naming the field and saying what was wrong.
import { z } from 'zod';
import { currencyExponent, MoneyError, toMinor } from '../money/index.js';
import { WireFormatError } from './errors.js';

/** A number, or a string holding one ("1500.50"). Kept as given; converted with the currency later. */
export const wireAmount = z.union([z.number(), z.string()], { error: 'must be a number' });

/** A string; a number is accepted and written as text (references, codes). */
export const wireText = z.union([z.string(), z.number().transform((n) => String(n))], { error: 'must be a string' });

/** true/false, "true"/"false" (any case), 1/0, "1"/"0". Anything else is an error, not a falsy guess. */
export const wireBoolean = z.union([z.boolean(), z.string(), z.number()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const t = String(v).trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  ctx.addIssue({ code: 'custom', message: `must be true or false, got ${describeValue(v)}` });
  return z.NEVER;
});

/** A currency code known to main/money (its exponent decides how amounts are read). Upper-cased. */
export const wireCurrency = z.string().transform((v, ctx) => {
  const c = v.trim().toUpperCase();
  try {
    currencyExponent(c);
    return c;
  } catch {
    ctx.addIssue({ code: 'custom', message: `unknown currency code ${describeValue(v)}` });
    return z.NEVER;
  }
});

/** Converts `obj[key]` with `currency` into minor units, reporting a failure at `key`. */
export function minorAt(ctx: z.core.$RefinementCtx, value: unknown, currency: string, key: string): number | undefined {
  try {
    return toMinor(value, currency, key);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: e instanceof MoneyError ? e.reason : String(e), path: [key] });
    return undefined;
  }
}

/** Parses `value` with `schema`; on failure throws WireFormatError naming the first bad field. */
export function parseWire<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  throw new WireFormatError(formatPath(first.path) || '(body)', issueMessage(first, value), r.error.issues.length);
}

/** ['merchant_balances', 2, 'available_balance'] -> "merchant_balances[2].available_balance". */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += (out === '' ? '' : '.') + String(p);
  }
  return out;
}

function issueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  if (issue.code === 'custom') return issue.message;
  // Say "is missing" rather than zod's "expected string, received undefined".
  let v: unknown = root;
  for (const p of issue.path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  if (v === undefined) return 'is missing';
  if (issue.code === 'invalid_type') return `must be ${article(issue.expected)}, got ${describeValue(v)}`;
  if (issue.code === 'invalid_union')
    return `${issue.message.replace(/^Invalid input:?\s*/i, '') || 'has the wrong type'}, got ${describeValue(v)}`;
  return issue.message;
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** A short, safe description of a service value for a message: type and a clipped rendering. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  return String(v);
}
