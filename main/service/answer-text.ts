// How a message shows what the service sent: a short, single-line excerpt of its body with every secret
// it may have echoed (keys, card cipher) blanked, and what kind of body it was when it was not JSON.
import type { RawResponse } from './transport.js';

export type Redact = (s: string) => string;

/** What an answer's body was when it is not the JSON expected, with an excerpt of it. */
export function describeBody(raw: RawResponse, redact: Redact): string {
  const t = raw.text.trim();
  if (t === '') return 'an empty body';
  const type = raw.headers.get('content-type') ?? '';
  if (/html/i.test(type) || /^<(!doctype|html|head|body|\?xml)/i.test(t))
    return `an HTML page instead of JSON: "${excerpt(t, redact)}"`;
  if (t.startsWith('{') || t.startsWith('[')) return `JSON that is cut short or invalid: "${excerpt(t, redact)}"`;
  return `a body that is not JSON: "${excerpt(t, redact)}"`;
}

/** The first ~160 characters of a body, single-line, with any secret the service echoed blanked. */
export function excerpt(text: string, redact: Redact = (s) => s): string {
  const flat = redact(text)
    .replace(/<[^>]{0,200}>/g, ' ')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
  return flat.length > 160 ? flat.slice(0, 160) + '…' : flat;
}

/** Blanks each secret (keys, card cipher) wherever it appears in a text from the service. */
export function redactor(secrets: (string | undefined)[]): Redact {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (s) => list.reduce((acc, secret) => acc.split(secret).join('[redacted]'), s);
}
