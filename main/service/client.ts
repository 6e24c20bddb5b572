// The service client: the three operations of the interface over fetch, with the headers DESIGN.md
// decides, a timeout on every request, retries for the two GETs only, and every failure turned into
// one of the ServiceError classes (errors.ts). Secrets (keys, card_cipher) never reach a message or a log.
import type { Logger } from 'pino';
import { realSleep, systemClock, type Clock, type Sleep } from '../clock.js';
import { CURRENCY_CODE, formatMinor, isKnownCurrency } from '../money/index.js';
import {
  AuthenticationError,
  DuplicateReferenceError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnknownOutcomeError,
  UnreadableResponseError,
  ValidationError,
  WireFormatError,
  type UnknownOutcomeReason,
} from './errors.js';
import type {
  InitializeAccepted,
  InitializeRequest,
  MerchantKeys,
  PaymentOption,
  PaymentOptionsQuery,
  ServiceClient,
  WalletBalance,
} from './types.js';
import { balancesDataSchema, envelopeSchema, errorDataSchema, initializeDataSchema, parseWire, providersDataSchema } from './wire.js';

export interface ServiceClientOptions {
  /** e.g. http://127.0.0.1:4010 or https://api.example/v1 (a path prefix is kept). */
  baseUrl: string;
  /** Asked on every request, so a key changed in Settings takes effect at once. */
  keys: () => MerchantKeys | Promise<MerchantKeys>;
  /** Per request, connection to last body byte. Default 20 000. */
  timeoutMs?: number;
  /** Extra attempts for the GET operations. Default 3. initialize is never retried. */
  retries?: number;
  /** First back-off step; doubles each retry, jittered, capped at backoffMaxMs. Default 500 / 8 000. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A Retry-After longer than this is not waited for here: the RateLimitedError goes to the caller. Default 30 000. */
  maxRetryAfterMs?: number;
  sleep?: Sleep;
  /** In [0, 1); jitter. Default Math.random. */
  random?: () => number;
  /** For Retry-After given as an HTTP date. */
  clock?: Clock;
  fetch?: typeof fetch;
  logger?: Logger;
}

type Op = 'balances' | 'providers' | 'initialize';

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Why no response arrived. */
interface TransportFailure {
  timeout: boolean;
  /** Nothing reached the server (refused, DNS, unreachable, TLS): safe to say "not sent". */
  notSent: boolean;
  code: string;
  cause: unknown;
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

/** Request fields of initialize, to find the field a message is about when the service gives no data.field. */
const INITIALIZE_FIELDS = [
  'merchant_reference',
  'transaction_method',
  'currency',
  'amount',
  'customer_name',
  'customer_email',
  'card_cipher',
  'description',
  'charge_customer',
  'allow_final_status_change',
  'redirect_url',
];

export function createServiceClient(opts: ServiceClientOptions): ServiceClient {
  const base = opts.baseUrl.trim().replace(/\/+$/, '');
  let origin: string;
  try {
    const u = new URL(base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    if (u.username || u.password) throw new Error('credentials');
    origin = u.origin;
  } catch {
    throw new ValidationError(`The service base URL "${opts.baseUrl}" is not an http(s) URL without user:password.`, 'baseUrl');
  }
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const retries = opts.retries ?? 3;
  const backoffBaseMs = opts.backoffBaseMs ?? 500;
  const backoffMaxMs = opts.backoffMaxMs ?? 8_000;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 30_000;
  const sleep = opts.sleep ?? realSleep;
  const random = opts.random ?? Math.random;
  const clock = opts.clock ?? systemClock;
  const fetchImpl = opts.fetch ?? fetch;
  const log = opts.logger;

  async function getKeys(): Promise<MerchantKeys> {
    const k = await opts.keys();
    if (!k || !k.publicKey) throw new AuthenticationError('No merchant public key is set: enter the keys in Settings.');
    return k;
  }

  /** One HTTP exchange: the whole body is read under the same timeout. */
  async function exchange(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<RawResponse | TransportFailure> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetchImpl(base + path, { method, headers, body, signal, redirect: 'manual' });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (e) {
      const timeout = signal.aborted || (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError'));
      const code = errorCode(e);
      return { timeout, notSent: !timeout && NOT_SENT_CODES.has(code), code, cause: e };
    }
  }

  /** Turns a non-success answer (or a 2xx whose body says error) into the ServiceError a caller can act on. */
  function errorFor(op: Op, raw: RawResponse, redact: (s: string) => string, sentReference?: string): ServiceError {
    const parsed = tryJson(raw.text);
    const env = parsed.ok ? envelopeSchema.safeParse(parsed.value) : undefined;
    const envelope = env?.success ? env.data : undefined;
    const status = effectiveStatus(raw.status, envelope);
    const serviceMessage = envelope?.message ? redact(envelope.message) : undefined;
    const data = envelope ? errorDataSchema.parse(envelope.data) : null;
    const said = serviceMessage ? `: ${serviceMessage}` : envelope ? '' : ` (${describeBody(raw, redact)})`;
    const what = opName(op);

    if (status === 401) {
      return new AuthenticationError(`The service refused the merchant keys for ${what} (HTTP 401)${said}. Check the public and secret key in Settings.`, { status, serviceMessage });
    }
    if (status === 403) return new ForbiddenError(`The service does not allow ${what} for this merchant account (HTTP 403)${said}.`, { status, serviceMessage });
    if (status === 404) {
      return new NotFoundError(`The service has no ${what} at ${origin} (HTTP 404)${said}. Check the base URL in Settings.`, { status, serviceMessage });
    }
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(raw.headers.get('retry-after'), clock.now());
      const wait = retryAfterMs === undefined ? '' : `; retry after ${Math.ceil(retryAfterMs / 1000)} s`;
      return new RateLimitedError(`The service is limiting the rate of requests (HTTP 429)${wait}.`, retryAfterMs, { status, serviceMessage });
    }
    if (status >= 500 && status <= 599) {
      if (op === 'initialize') {
        return new UnknownOutcomeError(
          `The service failed while handling the charge (HTTP ${status})${said}. It may or may not have created the collection: check it before charging again, and only re-send the same merchant_reference.`,
          { status, serviceMessage, reason: 'server_error' },
        );
      }
      return new UnavailableError(`The service is unavailable (HTTP ${status})${said}. Try again later.`, { status, serviceMessage });
    }
    if (status >= 400 && status <= 499) {
      let field = data?.field ?? undefined;
      if (field === undefined && serviceMessage && op === 'initialize') field = INITIALIZE_FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(serviceMessage));
      // 422 "duplicate merchant_reference" (DESIGN.md); a 409 Conflict on initialize can only mean the same.
      const duplicate = (status === 422 && /duplicate|already exists/i.test(serviceMessage ?? '')) || status === 409;
      if (op === 'initialize' && duplicate && (field === undefined || field === 'merchant_reference')) {
        const ref = data?.merchant_reference ?? sentReference ?? '';
        return new DuplicateReferenceError(
          `The service already has a collection with this merchant_reference (HTTP 422)${said}.`,
          ref,
          data?.internal_reference ?? undefined,
          data?.payment_url ?? undefined,
          { status, serviceMessage },
        );
      }
      const subject = field ? `${field}` : `the ${what} request`;
      return new ValidationError(`The service rejected ${subject} (HTTP ${status})${said}.`, field, { status, serviceMessage });
    }
    // 1xx/3xx or a 2xx whose body is an error without a usable code.
    if (op === 'initialize') {
      return new UnknownOutcomeError(`The service answered the charge with an unexpected HTTP ${raw.status}${said}; the outcome is unknown.`, {
        status: raw.status,
        serviceMessage,
        reason: 'unreadable',
      });
    }
    return new UnreadableResponseError(`The service answered ${what} with an unexpected HTTP ${raw.status}${said}.`, excerpt(raw.text, redact), {
      status: raw.status,
    });
  }

  /** A 2xx with the success envelope: returns `data`; otherwise throws the matching error. */
  function successData(op: Op, raw: RawResponse, redact: (s: string) => string, sentReference?: string): unknown {
    const what = opName(op);
    if (raw.status < 200 || raw.status > 299) throw errorFor(op, raw, redact, sentReference);
    const parsed = tryJson(raw.text);
    if (!parsed.ok) {
      throw new UnreadableResponseError(
        `The service answered ${what} (HTTP ${raw.status}) with ${describeBody(raw, redact)}.`,
        excerpt(raw.text, redact),
        { status: raw.status },
      );
    }
    const env = envelopeSchema.safeParse(parsed.value);
    if (!env.success) {
      throw new UnreadableResponseError(`The service answered ${what} (HTTP ${raw.status}) with JSON that is not its response envelope.`, excerpt(raw.text, redact), {
        status: raw.status,
      });
    }
    const status = effectiveStatus(raw.status, env.data);
    if (status < 200 || status > 299 || env.data.status?.toLowerCase() === 'error') throw errorFor(op, raw, redact, sentReference);
    if (env.data.data === undefined || env.data.data === null) {
      throw new UnreadableResponseError(`The service answered ${what} (HTTP ${raw.status}) without data.`, excerpt(raw.text, redact), { status: raw.status });
    }
    return env.data.data;
  }

  function shape<T>(op: Op, raw: RawResponse, data: unknown, schema: Parameters<typeof parseWire>[0], redact: (s: string) => string): T {
    try {
      return parseWire(schema, data) as T;
    } catch (e) {
      if (e instanceof WireFormatError) {
        throw new UnreadableResponseError(`The service's answer to ${opName(op)} has a bad value at ${e.message}.`, excerpt(raw.text, redact), {
          status: raw.status,
          cause: e,
        });
      }
      throw e;
    }
  }

  function transportError(op: Op, f: TransportFailure): ServiceError {
    const what = opName(op);
    if (f.timeout) return new NetworkError(`No answer from the service at ${origin} for ${what} within ${duration(timeoutMs)}.`, { cause: f.cause });
    return new NetworkError(`Could not reach the service at ${origin} for ${what}: ${describeCode(f.code)}.`, { cause: f.cause });
  }

  /** GET with retries on network errors, 5xx and 429 (jittered exponential back-off, Retry-After honoured). */
  async function getWithRetry(op: Op, path: string, headers: Record<string, string>, redact: (s: string) => string): Promise<{ raw: RawResponse; data: unknown }> {
    for (let attempt = 0; ; attempt++) {
      const started = clock.now();
      const r = await exchange('GET', path, headers);
      let err: ServiceError;
      let retryAfterMs: number | undefined;
      if ('status' in r) {
        retryAfterMs = parseRetryAfter(r.headers.get('retry-after'), clock.now());
        try {
          const data = successData(op, r, redact);
          log?.debug({ op, status: r.status, attempt, ms: clock.now() - started }, 'service request ok');
          return { raw: r, data };
        } catch (e) {
          if (!(e instanceof ServiceError)) throw e;
          err = e;
        }
      } else {
        err = transportError(op, r);
      }
      const retryable = err instanceof NetworkError || err instanceof UnavailableError || err instanceof RateLimitedError;
      log?.warn({ op, attempt, status: err.status, kind: err.kind, retryable }, 'service request failed');
      if (!retryable || attempt >= retries) throw err;
      const backoff = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
      let delay = backoff / 2 + random() * (backoff / 2);
      // Retry-After on a 429 or a 503: not before then; too long a wait goes back to the caller.
      if (retryAfterMs !== undefined && (err instanceof RateLimitedError || err instanceof UnavailableError)) {
        if (retryAfterMs > maxRetryAfterMs) throw err;
        delay = Math.max(delay, retryAfterMs);
      }
      await sleep(Math.round(delay));
    }
  }

  return {
    async getBalances(currency?: string): Promise<WalletBalance[]> {
      const keys = await getKeys();
      if (!keys.secretKey) throw new AuthenticationError('No merchant secret key is set: the balance inquiry needs it. Enter the keys in Settings.');
      const q = currency === undefined || currency === '' ? '' : `?currency=${encodeURIComponent(checkCurrency(currency))}`;
      const headers = { ...baseHeaders(), 'public-key': keys.publicKey, 'secret-key': keys.secretKey };
      const redact = redactor([keys.publicKey, keys.secretKey]);
      const { raw, data } = await getWithRetry('balances', `/data/wallet-balances${q}`, headers, redact);
      return shape<{ merchant_balances: WalletBalance[] }>('balances', raw, data, balancesDataSchema, redact).merchant_balances;
    },

    async getPaymentOptions(query: PaymentOptionsQuery = {}): Promise<PaymentOption[]> {
      const keys = await getKeys();
      const params = new URLSearchParams();
      if (query.currency) params.set('currency', checkCurrency(query.currency));
      if (query.transactionType) {
        const t = query.transactionType.trim().toUpperCase();
        if (!/^[A-Z_]{1,40}$/.test(t)) throw new ValidationError('transaction_type must be a word such as COLLECTION.', 'transaction_type');
        params.set('transaction_type', t);
      }
      const q = params.toString() === '' ? '' : `?${params.toString()}`;
      // The payment options request takes the public key only: the secret key is not sent where it is not asked for.
      const headers = { ...baseHeaders(), 'public-key': keys.publicKey };
      const redact = redactor([keys.publicKey, keys.secretKey]);
      const { raw, data } = await getWithRetry('providers', `/data/payment-providers${q}`, headers, redact);
      return shape<{ payment_providers: PaymentOption[] }>('providers', raw, data, providersDataSchema, redact).payment_providers;
    },

    async initialize(req: InitializeRequest): Promise<InitializeAccepted> {
      const keys = await getKeys();
      if (!keys.secretKey) throw new AuthenticationError('No merchant secret key is set: charging needs it. Enter the keys in Settings.');
      const body = initializeBody(req);
      const headers = { ...baseHeaders(), 'Content-Type': 'application/json', 'public-key': keys.publicKey, 'secret-key': keys.secretKey };
      const redact = redactor([keys.publicKey, keys.secretKey, req.cardCipher]);
      const started = clock.now();
      const r = await exchange('POST', '/collections/initialize', headers, body);
      if (!('status' in r)) {
        if (r.notSent) {
          log?.warn({ op: 'initialize', reference: req.merchantReference, code: r.code }, 'initialize not sent');
          const e = transportError('initialize', r);
          throw new NetworkError(`${e.message} Nothing was sent: it is safe to try again with the same merchant_reference.`, { cause: r.cause });
        }
        const reason: UnknownOutcomeReason = r.timeout ? 'timeout' : 'connection';
        log?.warn({ op: 'initialize', reference: req.merchantReference, reason, code: r.code }, 'initialize outcome unknown');
        throw new UnknownOutcomeError(
          r.timeout
            ? `The charge was sent but no answer came within ${duration(timeoutMs)}: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`
            : `The charge was sent but ${describeCode(r.code)} before an answer: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`,
          { cause: r.cause, reason },
        );
      }
      log?.info({ op: 'initialize', reference: req.merchantReference, status: r.status, ms: clock.now() - started }, 'initialize answered');
      let data: unknown;
      try {
        data = successData('initialize', r, redact, req.merchantReference);
      } catch (e) {
        if (e instanceof UnreadableResponseError) {
          throw new UnknownOutcomeError(`${e.message} The outcome of the charge is unknown: check it before charging again.`, {
            status: e.status,
            cause: e,
            reason: 'unreadable',
          });
        }
        throw e;
      }
      let d: { internal_reference?: string | null; merchant_reference?: string | null; payment_url: string };
      try {
        d = parseWire(initializeDataSchema, data);
      } catch (e) {
        const msg = e instanceof WireFormatError ? e.message : String(e);
        throw new UnknownOutcomeError(
          `The service accepted the charge (HTTP ${r.status}) but its answer has a bad value at ${msg}; the outcome is unknown.`,
          { status: r.status, cause: e, reason: 'unreadable' },
        );
      }
      const sentAuto = req.merchantReference === 'auto';
      const merchantReference = d.merchant_reference ?? (sentAuto ? undefined : req.merchantReference);
      if (merchantReference === undefined || (!sentAuto && merchantReference !== req.merchantReference)) {
        throw new UnknownOutcomeError(
          merchantReference === undefined
            ? `The service accepted the charge (HTTP ${r.status}) but did not say which merchant_reference it made; the outcome is unknown.`
            : `The service accepted the charge (HTTP ${r.status}) for a different merchant_reference than was sent; the outcome is unknown.`,
          { status: r.status, reason: 'unreadable' },
        );
      }
      const envMessage = envelopeSchema.safeParse(tryJson(r.text).value);
      return {
        httpStatus: r.status,
        merchantReference,
        internalReference: d.internal_reference ?? undefined,
        paymentUrl: d.payment_url,
        message: envMessage.success ? (envMessage.data.message ?? undefined) : undefined,
      };
    },
  };
}

/**
 * The initialize JSON, with the amount written as a JSON number from its decimal string (1500.50),
 * never through a float. Checks what the client itself can (amount, currency); the service checks the rest.
 */
export function initializeBody(req: InitializeRequest): string {
  const currency = checkCurrency(req.currency);
  if (!Number.isSafeInteger(req.amountMinor) || req.amountMinor <= 0) {
    throw new ValidationError('amount must be a positive whole number of minor units.', 'amount');
  }
  const amountText = formatMinor(req.amountMinor, currency);
  const fields: [string, unknown][] = [
    ['merchant_reference', req.merchantReference],
    ['transaction_method', 'CARD'],
    ['currency', currency],
    ['amount', RAW_AMOUNT],
    ['description', req.description],
    ['card_cipher', req.cardCipher],
    ['redirect_url', req.redirectUrl],
  ];
  if (req.customerName !== undefined) fields.push(['customer_name', req.customerName]);
  if (req.customerEmail !== undefined) fields.push(['customer_email', req.customerEmail]);
  if (req.chargeCustomer !== undefined) fields.push(['charge_customer', req.chargeCustomer]);
  if (req.allowFinalStatusChange !== undefined) fields.push(['allow_final_status_change', req.allowFinalStatusChange]);
  return '{' + fields.map(([k, v]) => `${JSON.stringify(k)}:${v === RAW_AMOUNT ? amountText : JSON.stringify(v)}`).join(',') + '}';
}

const RAW_AMOUNT = Symbol('amount');

function baseHeaders(): Record<string, string> {
  return { 'x-api-version': '1', Accept: 'application/json' };
}

function checkCurrency(c: string): string {
  const u = c.trim().toUpperCase();
  if (!CURRENCY_CODE.test(u)) throw new ValidationError('currency must be a 3-letter ISO code such as UGX.', 'currency');
  if (!isKnownCurrency(u)) throw new ValidationError(`currency ${u} is not one Merchant Desk knows the decimals of.`, 'currency');
  return u;
}

function opName(op: Op): string {
  return op === 'balances' ? 'the balance inquiry' : op === 'providers' ? 'the payment options list' : 'the charge (initialize)';
}

/** HTTP status, unless the body's numeric code says otherwise (DESIGN.md: judge by both). */
function effectiveStatus(http: number, env: { code?: number; status?: string } | undefined): number {
  if (http >= 200 && http <= 299 && env?.code !== undefined && (env.code < 200 || env.code > 299) && env.code >= 100 && env.code <= 599) return env.code;
  return http;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; value: undefined } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

function describeBody(raw: RawResponse, redact: (s: string) => string): string {
  const t = raw.text.trim();
  if (t === '') return 'an empty body';
  const type = raw.headers.get('content-type') ?? '';
  if (/html/i.test(type) || /^<(!doctype|html|head|body|\?xml)/i.test(t)) return `an HTML page instead of JSON: "${excerpt(t, redact)}"`;
  if (t.startsWith('{') || t.startsWith('[')) return `JSON that is cut short or invalid: "${excerpt(t, redact)}"`;
  return `a body that is not JSON: "${excerpt(t, redact)}"`;
}

/** The first ~160 characters of a body, single-line, with any secret the service echoed blanked. */
export function excerpt(text: string, redact: (s: string) => string = (s) => s): string {
  // eslint-disable-next-line no-control-regex
  const flat = redact(text).replace(/<[^>]{0,200}>/g, ' ').replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return flat.length > 160 ? flat.slice(0, 160) + '…' : flat;
}

function redactor(secrets: (string | undefined)[]): (s: string) => string {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (s) => list.reduce((acc, secret) => acc.split(secret).join('[redacted]'), s);
}

/** Retry-After: delta seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed',
  EPIPE: 'the connection was closed',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
};

function describeCode(code: string): string {
  const text = CODE_TEXT[code];
  if (text) return `${text} (${code})`;
  if (/CERT|TLS|SSL/i.test(code)) return `the TLS certificate was not accepted (${code})`;
  return `the connection failed (${code})`;
}

function errorCode(e: unknown): string {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return e instanceof Error ? e.message : 'network error';
}
