// The service's answers, mapped: a wire answer -> the typed result, or the ServiceError a caller can act
// on (no answer at all: no-answer.ts; the answer to a charge: initialize-answer.ts). Pure apart from reading the clock for a Retry-After given as a
// date; no I/O. Messages say what to do, and never contain the keys or the card cipher (`redact` blanks
// any echo, answer-text.ts).
import { nest, words, type MessageId } from '../words/words.shared.js';
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
  // The service's own message, or what its body was: detail said as it came, in every language.
  const said = serviceMessage ? `: ${serviceMessage}` : envelope ? '' : ` (${describeBody(raw, redact)})`;
  const what = { whatId: opWords(op), said };

  if (status === 401) {
    return new AuthenticationError(words('service.keysRefused', what), { status, serviceMessage });
  }
  if (status === 403) return new ForbiddenError(words('service.forbidden', what), { status, serviceMessage });
  if (status === 404) {
    return new NotFoundError(words('service.notFound', { ...what, origin: ctx.origin }), { status, serviceMessage });
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(raw.headers.get('retry-after'), ctx.now());
    return new RateLimitedError(
      retryAfterMs === undefined
        ? words('service.rateLimited')
        : words('service.rateLimitedWait', { seconds: Math.ceil(retryAfterMs / 1000) }),
      retryAfterMs,
      { status, serviceMessage },
    );
  }
  if (status >= 500 && status <= 599) {
    if (op === 'initialize') {
      return new UnknownOutcomeError(words('service.chargeFailed', { status: String(status), said }), {
        status,
        serviceMessage,
        reason: 'server_error',
      });
    }
    return new UnavailableError(words('service.unavailable', { status: String(status), said }), {
      status,
      serviceMessage,
    });
  }
  if (status >= 400 && status <= 499) return refusedRequest(ctx, op, status, serviceMessage, data, said, sentReference);
  // 1xx/3xx or a 2xx whose body is an error without a usable code.
  if (op === 'initialize') {
    return new UnknownOutcomeError(words('service.chargeUnexpected', { status: String(raw.status), said }), {
      status: raw.status,
      serviceMessage,
      reason: 'unreadable',
    });
  }
  return new UnreadableResponseError(
    words('service.unexpected', { ...what, status: String(raw.status) }),
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
      words('service.duplicate', { status: String(status), said }),
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
  return new ValidationError(
    field
      ? words('service.rejected', { subject: field, status: String(status), said })
      : words('service.rejectedRequest', { whatId: opWords(op), status: String(status), said }),
    field,
    { status, serviceMessage },
  );
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
  const what = { whatId: opWords(op), status: String(raw.status) };
  if (raw.status < 200 || raw.status > 299) throw errorFor(ctx, op, raw, redact, sentReference);
  const parsed = readWireJson(raw.text);
  if (!parsed.ok) {
    throw new UnreadableResponseError(
      words('service.notJson', { ...what, body: unreadableBody(raw, parsed, redact) }),
      excerpt(raw.text, redact),
      {
        status: raw.status,
      },
    );
  }
  const env = envelopeSchema.safeParse(parsed.value);
  if (!env.success) {
    throw new UnreadableResponseError(words('service.notEnvelope', what), excerpt(raw.text, redact), {
      status: raw.status,
    });
  }
  const status = effectiveStatus(raw.status, env.data);
  if (status < 200 || status > 299 || env.data.status?.trim().toLowerCase() === 'error')
    throw errorFor(ctx, op, raw, redact, sentReference);
  const word = env.data.status?.trim();
  if (word !== undefined && !SUCCESS_WORDS[op].includes(word.toLowerCase())) {
    const serviceMessage = env.data.message ? redact(env.data.message) : undefined;
    // The status word and the message are the service's own: said as they came.
    const said = words('service.statusWord', {
      whatId: opWords(op),
      word: JSON.stringify(excerpt(word, redact)),
      said: serviceMessage ? `: ${serviceMessage}` : '',
    });
    if (op === 'initialize')
      throw new UnknownOutcomeError(words('service.statusWordUnknown', nest('first', said, '')), {
        status: raw.status,
        serviceMessage,
        reason: 'unreadable',
      });
    throw new DeclinedError(said, { status: raw.status, serviceMessage });
  }
  if (env.data.data === undefined || env.data.data === null) {
    throw new UnreadableResponseError(words('service.noData', what), excerpt(raw.text, redact), { status: raw.status });
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
        words('service.badValue', { whatId: opWords(op), where: e.message }),
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

/** An operation's name in a sentence, as words ("the balance inquiry"). */
export function opWords(op: Op): MessageId {
  return op === 'balances'
    ? 'service.op.balances'
    : op === 'providers'
      ? 'service.op.providers'
      : 'service.op.initialize';
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
