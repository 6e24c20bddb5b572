// Which URLs the payment window may load (both shells): https, or plain http on a loopback address
// when the profile talks to a local sandbox. No credentials in URLs, nothing else.

export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function isAllowedPaymentUrl(candidate: string, opts: { allowLoopbackHttp: boolean }): boolean {
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (u.protocol === 'https:') return true;
  if (u.protocol === 'http:' && opts.allowLoopbackHttp && isLoopbackHostname(u.hostname)) return true;
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
  return u.protocol === 'https:' && !u.username && !u.password && candidate.length <= 2048 && !/[\s\u0000-\u001f]/.test(candidate);
}
