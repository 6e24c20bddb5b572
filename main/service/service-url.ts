// The one check of a URL the service gives (initialize's payment_url, on success and on the duplicate
// path), made before it is kept: an https address with no user or password, or plain http on loopback
// when the service itself is a loopback sandbox (the embedded profile's). Anything else (javascript:, an
// http page elsewhere, a URL with spaces or control characters) is refused with a reason a person can read.
import { isLoopbackHost } from './loopback.js';

/** Why `candidate` is not a page the desk will open, or null when it is. `serviceOrigin`: the base URL's. */
export function serviceUrlProblem(candidate: string, serviceOrigin: string): string | null {
  if (candidate.length > 2048) return 'is longer than 2,048 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(candidate)) return 'has spaces or control characters';
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    return 'is not a URL';
  }
  // Userinfo written but empty ("https://@host/") is refused too: it is only ever a trick.
  if (u.username || u.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(candidate))
    return 'carries a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname) && isLoopbackService(serviceOrigin)) return null;
  return 'is not an https address';
}

/** How a message names a refused URL: 'the page it named (payment_url "javascript:alert(1)") is not ...'. */
export function refusedUrlText(field: string, url: string, problem: string): string {
  const shown = url.length > 80 ? url.slice(0, 80) + '…' : url;
  return `the page it named (${field} ${JSON.stringify(shown)}) ${problem}, so the desk will not open it`;
}

function isLoopbackService(origin: string): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}
