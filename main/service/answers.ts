// The service's answers, mapped: a wire answer (or no answer) -> the typed result, or the ServiceError
// a caller can act on. Pure apart from reading the clock for a Retry-After given as a date; no I/O.
// Messages say what to do, and never contain the keys or the card cipher (`redact` blanks any echo).
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
import type { RawResponse, TransportFailure } from './transport.js';
import type { InitializeAccepted } from './types.js';
import { envelopeSchema, errorDataSchema, initializeDataSchema, parseWire } from './wire.js';

export type Op = 'balances' | 'providers' | 'initialize';

export type Redact = (s: string) => string;

/** What messages name: the service's origin and the time-out that expired. */
export interface AnswerContext {
  origin: string;
  timeoutMs: number;
  /** Unix ms, for a Retry-After given as an HTTP date. */
  now: () => number;
}

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

/** Turns a non-success answer (or a 2xx whose body says error) into the ServiceError a caller can act on. */
export function errorFor(
  ctx: AnswerContext,
  op: Op,
  raw: RawResponse,
  redact: Redact,
  sentReference?: string,
): ServiceError {
  const parsed = tryJson(raw.text);
  const env = parsed.ok ? envelopeSchema.safeParse(parsed.value) : undefined;
  const envelope = env?.success ? env.data : undefined;
  const status = effectiveStatus(raw.status, envelope);
  const serviceMessage = envelope?.message ? redact(envelope.message) : undefined;
  const data = envelope ? errorDataSchema.parse(envelope.data) : null;
  const said = serviceMessage ? `: ${serviceMessage}` : envelope ? '' : ` (${describeBody(raw, redact)})`;
  const what = opName(op);

  if (status === 401) {
    return new AuthenticationError(
      `The service refused the merchant keys for ${what} (HTTP 401)${said}. Check the public and secret key in Settings.`,
      { status, serviceMessage },
    );
  }
  if (status === 403)
    return new ForbiddenError(`The service does not allow ${what} for this merchant account (HTTP 403)${said}.`, {
      status,
      serviceMessage,
    });
  if (status === 404) {
    return new NotFoundError(
      `The service has no ${what} at ${ctx.origin} (HTTP 404)${said}. Check the base URL in Settings.`,
      { status, serviceMessage },
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(raw.headers.get('retry-after'), ctx.now());
    const wait = retryAfterMs === undefined ? '' : `; retry after ${Math.ceil(retryAfterMs / 1000)} s`;
    return new RateLimitedError(`The service is limiting the rate of requests (HTTP 429)${wait}.`, retryAfterMs, {
      status,
      serviceMessage,
    });
  }
  if (status >= 500 && status <= 599) {
    if (op === 'initialize') {
      return new UnknownOutcomeError(
        `The service failed while handling the charge (HTTP ${status})${said}. It may or may not have created the collection: check it before charging again, and only re-send the same merchant_reference.`,
        { status, serviceMessage, reason: 'server_error' },
      );
    }
    return new UnavailableError(`The service is unavailable (HTTP ${status})${said}. Try again later.`, {
      status,
      serviceMessage,
    });
  }
  if (status >= 400 && status <= 499) {
    let field = data?.field ?? undefined;
    if (field === undefined && serviceMessage && op === 'initialize')
      field = INITIALIZE_FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(serviceMessage));
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
    return new ValidationError(`The service rejected ${subject} (HTTP ${status})${said}.`, field, {
      status,
      serviceMessage,
    });
  }
  // 1xx/3xx or a 2xx whose body is an error without a usable code.
  if (op === 'initialize') {
    return new UnknownOutcomeError(
      `The service answered the charge with an unexpected HTTP ${raw.status}${said}; the outcome is unknown.`,
      {
        status: raw.status,
        serviceMessage,
        reason: 'unreadable',
      },
    );
  }
  return new UnreadableResponseError(
    `The service answered ${what} with an unexpected HTTP ${raw.status}${said}.`,
    excerpt(raw.text, redact),
    {
      status: raw.status,
    },
  );
}

/** A 2xx with the success envelope: returns `data`; otherwise throws the matching error. */
export function successData(
  ctx: AnswerContext,
  op: Op,
  raw: RawResponse,
  redact: Redact,
  sentReference?: string,
): unknown {
  const what = opName(op);
  if (raw.status < 200 || raw.status > 299) throw errorFor(ctx, op, raw, redact, sentReference);
  const parsed = tryJson(raw.text);
  if (!parsed.ok) {
    throw new UnreadableResponseError(
      `The service answered ${what} (HTTP ${raw.status}) with ${describeBody(raw, redact)}.`,
      excerpt(raw.text, redact),
      {
        status: raw.status,
      },
    );
  }
  const env = envelopeSchema.safeParse(parsed.value);
  if (!env.success) {
    throw new UnreadableResponseError(
      `The service answered ${what} (HTTP ${raw.status}) with JSON that is not its response envelope.`,
      excerpt(raw.text, redact),
      {
        status: raw.status,
      },
    );
  }
  const status = effectiveStatus(raw.status, env.data);
  if (status < 200 || status > 299 || env.data.status?.toLowerCase() === 'error')
    throw errorFor(ctx, op, raw, redact, sentReference);
  if (env.data.data === undefined || env.data.data === null) {
    throw new UnreadableResponseError(
      `The service answered ${what} (HTTP ${raw.status}) without data.`,
      excerpt(raw.text, redact),
      { status: raw.status },
    );
  }
  return env.data.data;
}

/** `data` checked against the operation's wire schema; a bad value is an unreadable answer. */
export function shape<T>(
  op: Op,
  raw: RawResponse,
  data: unknown,
  schema: Parameters<typeof parseWire>[0],
  redact: Redact,
): T {
  try {
    return parseWire(schema, data) as T;
  } catch (e) {
    if (e instanceof WireFormatError) {
      throw new UnreadableResponseError(
        `The service's answer to ${opName(op)} has a bad value at ${e.message}.`,
        excerpt(raw.text, redact),
        {
          status: raw.status,
          cause: e,
        },
      );
    }
    throw e;
  }
}

/** No answer to a GET: a NetworkError that says why. */
export function transportError(ctx: AnswerContext, op: Op, f: TransportFailure): ServiceError {
  const what = opName(op);
  if (f.timeout)
    return new NetworkError(
      `No answer from the service at ${ctx.origin} for ${what} within ${duration(ctx.timeoutMs)}.`,
      { cause: f.cause },
    );
  return new NetworkError(`Could not reach the service at ${ctx.origin} for ${what}: ${describeCode(f.code)}.`, {
    cause: f.cause,
  });
}

/**
 * No answer to a charge: safe to re-send when nothing can have reached the service (a NetworkError);
 * otherwise the outcome is unknown, and only the same merchant_reference may be sent again.
 */
export function initializeTransportError(ctx: AnswerContext, f: TransportFailure): ServiceError {
  if (f.notSent) {
    const e = transportError(ctx, 'initialize', f);
    return new NetworkError(
      `${e.message} Nothing was sent: it is safe to try again with the same merchant_reference.`,
      { cause: f.cause },
    );
  }
  const reason: UnknownOutcomeReason = f.timeout ? 'timeout' : 'connection';
  return new UnknownOutcomeError(
    f.timeout
      ? `The charge was sent but no answer came within ${duration(ctx.timeoutMs)}: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`
      : `The charge was sent but ${describeCode(f.code)} before an answer: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`,
    { cause: f.cause, reason },
  );
}

/**
 * The answer to a charge -> what was accepted. Anything the desk cannot read after the request was
 * sent is an UnknownOutcomeError: the collection may exist.
 */
export function initializeAnswer(
  ctx: AnswerContext,
  raw: RawResponse,
  redact: Redact,
  sentReference: string,
): InitializeAccepted {
  let data: unknown;
  try {
    data = successData(ctx, 'initialize', raw, redact, sentReference);
  } catch (e) {
    if (e instanceof UnreadableResponseError) {
      throw new UnknownOutcomeError(
        `${e.message} The outcome of the charge is unknown: check it before charging again.`,
        {
          status: e.status,
          cause: e,
          reason: 'unreadable',
        },
      );
    }
    throw e;
  }
  let d: { internal_reference?: string | null; merchant_reference?: string | null; payment_url: string };
  try {
    d = parseWire(initializeDataSchema, data);
  } catch (e) {
    const msg = e instanceof WireFormatError ? e.message : String(e);
    throw new UnknownOutcomeError(
      `The service accepted the charge (HTTP ${raw.status}) but its answer has a bad value at ${msg}; the outcome is unknown.`,
      {
        status: raw.status,
        cause: e,
        reason: 'unreadable',
      },
    );
  }
  const sentAuto = sentReference === 'auto';
  const merchantReference = d.merchant_reference ?? (sentAuto ? undefined : sentReference);
  if (merchantReference === undefined || (!sentAuto && merchantReference !== sentReference)) {
    throw new UnknownOutcomeError(
      merchantReference === undefined
        ? `The service accepted the charge (HTTP ${raw.status}) but did not say which merchant_reference it made; the outcome is unknown.`
        : `The service accepted the charge (HTTP ${raw.status}) for a different merchant_reference than was sent; the outcome is unknown.`,
      { status: raw.status, reason: 'unreadable' },
    );
  }
  const envMessage = envelopeSchema.safeParse(tryJson(raw.text).value);
  return {
    httpStatus: raw.status,
    merchantReference,
    internalReference: d.internal_reference ?? undefined,
    paymentUrl: d.payment_url,
    message: envMessage.success ? (envMessage.data.message ?? undefined) : undefined,
  };
}

export function opName(op: Op): string {
  return op === 'balances'
    ? 'the balance inquiry'
    : op === 'providers'
      ? 'the payment options list'
      : 'the charge (initialize)';
}

/** HTTP status, unless the body's numeric code says otherwise (DESIGN.md: judge by both). */
function effectiveStatus(http: number, env: { code?: number; status?: string } | undefined): number {
  if (
    http >= 200 &&
    http <= 299 &&
    env?.code !== undefined &&
    (env.code < 200 || env.code > 299) &&
    env.code >= 100 &&
    env.code <= 599
  )
    return env.code;
  return http;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; value: undefined } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

function describeBody(raw: RawResponse, redact: Redact): string {
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
