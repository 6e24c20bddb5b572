// Deep redaction for logs: keys that hold secrets or card data are replaced wherever they appear
// (any depth, any casing, dash or underscore), and card-number-like digit runs inside any string are
// masked. Errors are turned into plain objects (message, stack, cause) and scrubbed the same way.

export const REDACTED = '[redacted]';
export const CARD_MASK = '[card number]';

/** Normalised key names (lower case, no - or _) that are always redacted. */
const EXACT = new Set([
  'secretkey',
  'publickey',
  'signingkey',
  'privatekey',
  'apikey',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'token',
  'accesstoken',
  'refreshtoken',
  'authorization',
  'cookie',
  'setcookie',
  'headers',
  'rawheaders',
  'cvv',
  'cvc',
  'cvv2',
  'cvc2',
  'pin',
  'pan',
  'cardno',
  'cardnumber',
  'card',
  'cardcipher',
  'cipher',
  'expmonth',
  'expyear',
  'expiry',
  'expirydate',
  'expiration',
  'plaintext',
  'firstname',
  'lastname',
  'body',
  'requestbody',
  'keys',
]);

/** Prefixes (normalised) that are redacted, except the harmless names below. */
const PREFIXES = ['secret', 'signing', 'card', 'billing', 'private', 'cvv', 'password'];
const ALLOWED = new Set(['cardbrand', 'cardlast4']);

export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_\s]/g, '');
  if (ALLOWED.has(k)) return false;
  if (EXACT.has(k)) return true;
  return PREFIXES.some((p) => k.startsWith(p));
}

function luhnOk(digits: string): boolean {
  let sum = 0;
  let dbl = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

// 12 to 19 digits, optionally grouped by single spaces or dashes.
const CARDISH = /(?<![\d])\d(?:[ -]?\d){11,18}(?![\d])/g;

// A CVV or expiry typed into free text ("cvv 123", "CVC: 1234", "exp 12/29", "expiry=12/2029",
// "exp_month=12"): the label stays, the value is masked.
const LABELLED_CVV = /\b(cvv2?|cvc2?|csc|security[ _-]?code)(["']?\s*[:=#]?\s*["']?)\d{3,4}\b/gi;
const LABELLED_EXPIRY =
  /\b(exp(?:iry|iration|ires?)?(?:[ _-]?date)?|valid[ _-]?(?:thru|through|until))(["']?\s*[:=]?\s*["']?)(?:0?[1-9]|1[0-2])\s*[/-]\s*(?:\d{4}|\d{2})\b/gi;
const LABELLED_EXP_PART = /\b(exp[ _-]?(?:month|year|mm|yy|yyyy))(["']?\s*[:=]?\s*["']?)\d{1,4}\b/gi;
// An unlabelled MM/YY right after a card number is its expiry.
const EXPIRY_AFTER_CARD = /(\[card number\][\s,;]*)(?:0?[1-9]|1[0-2])\s*\/\s*(?:\d{4}|\d{2})\b/g;

/**
 * Masks digit runs that look like a card number (12-19 digits passing Luhn), and a CVV or expiry
 * written next to its label or right after a card number.
 */
export function scrubString(s: string): string {
  if (s.length < 5 || !/\d/.test(s)) return s;
  let out = s;
  if (s.length >= 12) {
    out = out.replace(CARDISH, (m) => {
      const digits = m.replace(/[ -]/g, '');
      return digits.length >= 12 && digits.length <= 19 && luhnOk(digits) ? CARD_MASK : m;
    });
  }
  return out
    .replace(LABELLED_CVV, `$1$2${REDACTED}`)
    .replace(LABELLED_EXPIRY, `$1$2${REDACTED}`)
    .replace(LABELLED_EXP_PART, `$1$2${REDACTED}`)
    .replace(EXPIRY_AFTER_CARD, `$1${REDACTED}`);
}

/** A redacted deep copy, safe to serialise. Cycles and depth beyond 8 are cut. */
export function redactDeep(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value))
    return `[${value.constructor.name} ${(value as Uint8Array).byteLength} bytes]`;
  if (seen.has(value)) return '[circular]';
  if (depth > 8) return '[too deep]';
  seen.add(value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = { type: value.name, message: scrubString(value.message) };
    if (value.stack) out.stack = scrubString(value.stack);
    for (const [k, v] of Object.entries(value)) {
      if (k === 'cause') continue;
      out[k] = isSensitiveKey(k) ? REDACTED : redactDeep(v, depth + 1, seen);
    }
    if (value.cause !== undefined) out.cause = redactDeep(value.cause, depth + 1, seen);
    return out;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1, seen));
  if (value instanceof Map) return redactDeep(Object.fromEntries(value), depth, seen);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSensitiveKey(k) ? REDACTED : redactDeep(v, depth + 1, seen);
  }
  return out;
}
