// The service's answers, mapped: a wire answer -> the typed result, or the ServiceError a caller can act
// on (no answer at all: no-answer.ts; the answer to a charge: initialize-answer.ts). Pure apart from reading the clock for a Retry-After given as a
// date; no I/O. Messages say what to do, and never contain the keys or the card cipher (`redact` blanks
// any echo, answer-text.ts).
import {
  AuthenticationError,
  DeclinedError,
  DuplicateReferenceError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnknownOutcomeError,
  UnreadableResponseError,
  ValidationError,
  WireFormatError,
} from './errors.js';
import type { z } from 'zod';
import type { RawResponse } from './transport.js';
import { envelopeSchema, errorDataSchema } from './wire.js';
import { parseWire } from './wire-values.js';
import { readWireJson, type WireJson } from './wire-json.js';
import { describeBody, excerpt, type Redact } from './answer-text.js';
import { refusedUrlText, serviceUrlProblem } from './service-url.js';

export type Op = 'balances' | 'providers' | 'initialize';

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

/** The `data` of an error envelope, as errorDataSchema reads it. */
type ErrorData = z.output<typeof errorDataSchema>;

/** Turns a non-success answer (or a 2xx whose body says error) into the ServiceError a caller can act on. */
export function errorFor(
  ctx: AnswerContext,
  op: Op,
  raw: RawResponse,
  redact: Redact,
  sentReference?: string,
): ServiceError {
  const parsed = readWireJson(raw.text);
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
  if (status >= 400 && status <= 499) return refusedRequest(ctx, op, status, serviceMessage, data, said, sentReference);
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

/**
 * Any other 4xx: the request was refused for a value. On initialize, a duplicate merchant_reference
 * proves the collection exists (DuplicateReferenceError); the field is the service's data.field, else
 * the request field its message names.
 */
function refusedRequest(
  ctx: AnswerContext,
  op: Op,
  status: number,
  serviceMessage: string | undefined,
  data: ErrorData,
  said: string,
  sentReference: string | undefined,
): ServiceError {
  let field = data?.field ?? undefined;
  if (field === undefined && serviceMessage && op === 'initialize')
    field = INITIALIZE_FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(serviceMessage));
  // 422 "duplicate merchant_reference" (DESIGN.md); a 409 Conflict on initialize can only mean the same.
  const duplicate = (status === 422 && /duplicate|already exists/i.test(serviceMessage ?? '')) || status === 409;
  if (op === 'initialize' && duplicate && (field === undefined || field === 'merchant_reference')) {
    const ref = data?.merchant_reference ?? sentReference ?? '';
    // The page of the collection that exists, checked as the success path's is: a refused one is not kept.
    const url = data?.payment_url ?? undefined;
    const problem = url === undefined ? null : serviceUrlProblem(url, ctx.origin);
    return new DuplicateReferenceError(
      `The service already has a collection with this merchant_reference (HTTP ${status})${said}.`,
      ref,
      data?.internal_reference ?? undefined,
      problem ? undefined : url,
      {
        status,
        serviceMessage,
        ...(problem ? { refusedPaymentUrl: refusedUrlText('payment_url', url!, problem) } : {}),
      },
    );
  }
  const subject = field ? `${field}` : `the ${opName(op)} request`;
  return new ValidationError(`The service rejected ${subject} (HTTP ${status})${said}.`, field, {
    status,
    serviceMessage,
  });
}

/**
 * The status words of a success (the contract: code 200 and status success; DESIGN.md: initialize's 202
 * accepted). An envelope without a status is judged by its code and the HTTP status alone.
 */
const SUCCESS_WORDS: Record<Op, readonly string[]> = {
  balances: ['success'],
  providers: ['success'],
  initialize: ['success', 'accepted'],
};

/** A 2xx with the success envelope: returns `data`; otherwise throws the matching error. */
export function successData(
  ctx: AnswerContext,
  op: Op,
  raw: RawResponse,
  redact: Redact,
  sentReference?: string,
): unknown {
  return successEnvelope(ctx, op, raw, redact, sentReference).data;
}

/** successData, with the envelope's message beside its `data`. */
export function successEnvelope(
  ctx: AnswerContext,
  op: Op,
  raw: RawResponse,
  redact: Redact,
  sentReference?: string,
): { data: unknown; message: string | undefined } {
  const what = opName(op);
  if (raw.status < 200 || raw.status > 299) throw errorFor(ctx, op, raw, redact, sentReference);
  const parsed = readWireJson(raw.text);
  if (!parsed.ok) {
    throw new UnreadableResponseError(
      `The service answered ${what} (HTTP ${raw.status}) with ${unreadableBody(raw, parsed, redact)}.`,
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
  if (status < 200 || status > 299 || env.data.status?.trim().toLowerCase() === 'error')
    throw errorFor(ctx, op, raw, redact, sentReference);
  const word = env.data.status?.trim();
  if (word !== undefined && !SUCCESS_WORDS[op].includes(word.toLowerCase())) {
    const serviceMessage = env.data.message ? redact(env.data.message) : undefined;
    const said = `The service answered ${what} with status ${JSON.stringify(excerpt(word, redact))}${serviceMessage ? `: ${serviceMessage}` : ''}.`;
    if (op === 'initialize')
      throw new UnknownOutcomeError(
        `${said} Whether it created the collection is unknown: check it before charging again, and only re-send the same merchant_reference.`,
        { status: raw.status, serviceMessage, reason: 'unreadable' },
      );
    throw new DeclinedError(said, { status: raw.status, serviceMessage });
  }
  if (env.data.data === undefined || env.data.data === null) {
    throw new UnreadableResponseError(
      `The service answered ${what} (HTTP ${raw.status}) without data.`,
      excerpt(raw.text, redact),
      { status: raw.status },
    );
  }
  return { data: env.data.data, message: env.data.message ?? undefined };
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

export function opName(op: Op): string {
  return op === 'balances'
    ? 'the balance inquiry'
    : op === 'providers'
      ? 'the payment options list'
      : 'the charge (initialize)';
}

/** HTTP status, unless the body's numeric code says otherwise (DESIGN.md: judge by both). */
function effectiveStatus(
  http: number,
  env: { code?: number | undefined; status?: string | undefined } | undefined,
): number {
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

/** What a body that could not be read was: past the limits the desk reads JSON within, or not JSON. */
function unreadableBody(raw: RawResponse, parsed: Exclude<WireJson, { ok: true }>, redact: Redact): string {
  if (parsed.reason === 'not_json') return describeBody(raw, redact);
  return `a body the desk does not read (${parsed.message})`;
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
