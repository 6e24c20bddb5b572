// Which URLs the payment window may load (both shells): https, or plain http on a loopback address
// when the profile talks to a local sandbox. No credentials in URLs, nothing else.
import { getDomain } from 'tldts';
import { isLoopbackHost } from '../service/loopback.js';

export function isAllowedPaymentUrl(candidate: string, opts: { allowLoopbackHttp: boolean }): boolean {
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (u.protocol === 'https:') return true;
  if (u.protocol === 'http:' && opts.allowLoopbackHttp && isLoopbackHost(u.hostname)) return true;
  return false;
}

/** shell.openExternal is only ever given https URLs without credentials (never file:, custom schemes, ...). */
export function isVettedExternalUrl(candidate: string): boolean {
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  const control = /[\s\u0000-\u001f]/;
  return u.protocol === 'https:' && !u.username && !u.password && candidate.length <= 2048 && !control.test(candidate);
}

/**
 * The registrable domain by the Public Suffix List (tldts, which ships the list): a host under a public
 * suffix of the list's ICANN section ("co.ke", "nom.za", "*.ck") or of its private section (a shared
 * host such as "github.io" or "herokuapp.com", where each customer's subdomain is someone else's site)
 * is registrable one label below that suffix. Before the list replaced a hand-kept set of country-code
 * second levels, "nom.za", "web.za", "us.com" and "github.io" were taken for registrable domains: a base
 * URL under one let every other customer's host there through.
 */
const PSL = { allowPrivateDomains: true, extractHostname: false } as const;

/** "api.pay.example.co.ke" -> "example.co.ke"; null for IP addresses, public suffixes, single labels and trailing dots. */
export function registrableDomain(hostname: string): string | null {
  const h = hostname.toLowerCase();
  if (!h || h.endsWith('.') || h.includes(':') || h.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(h)) return null;
  const labels = h.split('.');
  if (labels.length < 2 || labels.some((l) => l === '')) return null;
  return getDomain(h, PSL);
}

/** Where the active profile's payment pages may live. */
export interface PaymentPageScope {
  /** The active profile's base URL (the embedded profile: its sandbox's), or null when none is set. */
  baseUrl: string | null;
  /** Payment URLs the service returned from initialize: their exact origins are allowed too. */
  paymentUrls?: readonly string[];
  /** http on loopback (a local sandbox); still only the exact origin of the base URL or a payment URL. */
  allowLoopbackHttp: boolean;
}

function parseStrict(text: string): URL | null {
  if (typeof text !== 'string' || text.length > 8192) return null;
  // The WHATWG parser strips or rewrites whitespace, control characters and backslashes: refuse them.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(text)) return null;
  // Userinfo written but empty ("https://@host/") is still a trick.
  const authority = text.slice(text.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Whether a URL is a payment page of the active profile (openExternal, and the payment window's
 * top-level navigations): https (or loopback http when allowed), no credentials, and either the exact
 * origin of the base URL or of a payment URL initialize returned, or a host on the base URL's
 * registrable domain on the default https port. Any other https host is refused.
 */
export function isPaymentPageUrl(candidate: string, scope: PaymentPageScope): boolean {
  if (!isAllowedPaymentUrl(candidate, { allowLoopbackHttp: scope.allowLoopbackHttp })) return false;
  const u = parseStrict(candidate);
  if (!u) return false;
  for (const p of scope.paymentUrls ?? []) {
    const known = parseStrict(p);
    if (known && known.origin === u.origin && isAllowedPaymentUrl(p, { allowLoopbackHttp: scope.allowLoopbackHttp }))
      return true;
  }
  const base = scope.baseUrl ? parseStrict(scope.baseUrl) : null;
  if (!base) return false;
  if (u.origin === base.origin) return true;
  if (u.protocol !== 'https:' || u.port !== '') return false;
  const domain = registrableDomain(base.hostname);
  if (!domain) return false;
  return u.hostname === domain || u.hostname.endsWith('.' + domain);
}
