// The HTTP exchange with the service: fetch, one time-out from connecting to the last body byte, and
// a failure that says whether anything can have reached the service. It knows nothing of the
// service's answers (./answers.ts) or of retrying (./retry-policy.ts).
import { words } from '../words/words.shared.js';
import { ValidationError } from './errors.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Why no response arrived. */
export interface TransportFailure {
  timeout: boolean;
  /** Nothing reached the server (refused, DNS, unreachable, TLS): safe to say "not sent". */
  notSent: boolean;
  code: string;
  cause: unknown;
}

export type Exchange = (
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
) => Promise<RawResponse | TransportFailure>;

export interface TransportOptions {
  /** Validated with parseBaseUrl; requests go to base + path. */
  base: string;
  /** Per request, connection to last body byte. */
  timeoutMs: number;
  fetch: typeof fetch;
  /** A body is read up to one byte past this, then let go: the answer's reader refuses it as too large. */
  maxBodyBytes: number;
}

/** The base URL without trailing slashes (a path prefix is kept), and its origin for messages. */
export function parseBaseUrl(baseUrl: string): { base: string; origin: string } {
  const base = baseUrl.trim().replace(/\/+$/, '');
  try {
    const u = new URL(base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    if (u.username || u.password) throw new Error('credentials');
    return { base, origin: u.origin };
  } catch {
    throw new ValidationError(words('service.badBaseUrl', { url: baseUrl }), 'baseUrl');
  }
}

export function isTransportFailure(r: RawResponse | TransportFailure): r is TransportFailure {
  return !('status' in r);
}

/** One HTTP exchange: the whole body is read under the same time-out. Never throws. */
export function createExchange(opts: TransportOptions): Exchange {
  return async (method, path, headers, body) => {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    try {
      // redirect: 'manual': a redirect is an answer to report, never a reason to send the keys elsewhere.
      const res = await opts.fetch(opts.base + path, {
        method,
        headers,
        body: body ?? null,
        signal,
        redirect: 'manual',
      });
      const text = await bodyText(res, opts.maxBodyBytes);
      return { status: res.status, headers: res.headers, text };
    } catch (e) {
      const timeout = signal.aborted || (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError'));
      const code = errorCode(e);
      return { timeout, notSent: !timeout && NOT_SENT_CODES.has(code), code, cause: e };
    }
  };
}

/** The body as text, read no further than one byte past `max` (a hostile service may send without end). */
async function bodyText(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      break;
    }
  }
  // As res.text() decodes: UTF-8, a leading byte order mark dropped.
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ERR_INVALID_URL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The system or undici code of a fetch failure (fetch wraps it in `cause`), else the message. */
function errorCode(e: unknown): string {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return e instanceof Error ? e.message : 'network error';
}
