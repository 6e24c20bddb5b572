// "Is this navigation the redirect URL?" One pure rule, used by both shells' payment windows and by
// handleRedirect. Exact scheme, host, port and path of the configured redirect_url; no user:password;
// the query is free (it carries the result). Anything the URL parser would normalise differently from
// what a person reads (backslashes, encoded separators) is refused rather than guessed.
import { checkSignatures, type SignatureCheck, type SignatureKeys } from '../service/verify-callback.js';

function parse(text: string): URL | null {
  if (typeof text !== 'string' || text.length > 8192) return null;
  // Control characters and whitespace are stripped or rewritten by the WHATWG parser; refuse them.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x5c) return null;
  }
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The path as written (before the parser folds dot segments or decodes %2e). */
function rawPath(text: string): string {
  const afterScheme = text.indexOf('//') >= 0 ? text.slice(text.indexOf('//') + 2) : text;
  const start = afterScheme.search(/[/?#]/);
  if (start < 0 || afterScheme[start] !== '/') return '';
  return afterScheme.slice(start).split(/[?#]/, 1)[0] ?? '';
}

/** The path compared exactly, after refusing encoded separators and dot segments the parser may fold. */
function safePath(u: URL, text: string): string | null {
  const raw = rawPath(text);
  if (/%2f|%5c|%2e|%00/i.test(raw) || /(^|\/)\.{1,2}(\/|$)/.test(raw)) return null;
  return u.pathname;
}

export function isRedirectUrl(candidate: string, configured: string): boolean {
  const want = parse(configured);
  const got = parse(candidate);
  if (!want || !got) return false;
  if (got.username !== '' || got.password !== '') return false;
  // userinfo written but empty ("https://@host/") is still a trick: refuse any '@' before the path.
  const authority = candidate.slice(candidate.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return false;
  if (got.protocol !== want.protocol) return false;
  if (got.hostname !== want.hostname) return false;
  if (got.port !== want.port) return false;
  const gp = safePath(got, candidate);
  const wp = safePath(want, configured);
  if (gp === null || wp === null) return false;
  return gp === wp;
}

/** The query of a captured redirect URL as a plain object (the last value wins for a repeated name). */
export function redirectParams(url: string): Record<string, string> {
  const u = new URL(url);
  const out: Record<string, string> = {};
  for (const [k, v] of u.searchParams) out[k] = v;
  return out;
}

/**
 * The signature check of a redirect's query (hmac_signature, rsa_signature over the signed fields it
 * names): the payment window's capture and a team desk's check of a pulled redirect use this one rule.
 */
export function redirectSignatureCheck(p: Record<string, string>, keys: SignatureKeys): SignatureCheck {
  const fields = {
    event: p.event ?? '',
    merchant_reference: p.merchant_reference ?? '',
    internal_reference: p.internal_reference ?? '',
    transaction_type: p.transaction_type ?? '',
    transaction_status: p.transaction_status ?? '',
  };
  // A '+' in base64 arrives as a space when the query was not percent-encoded.
  const rsa = p.rsa_signature?.replace(/ /g, '+');
  return checkSignatures(fields, { hmacHeader: p.hmac_signature, rsaSignature: rsa }, keys);
}
