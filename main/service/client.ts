// The service client: the three operations of the interface, with the headers DESIGN.md decides.
// It puts together the transport (transport.ts: fetch with a time-out), the answer mapping (answers.ts:
// wire answer -> typed result or ServiceError; initialize-answer.ts: a charge's answer; no-answer.ts: no
// answer -> the ServiceError that says why) and the retry policy (retry-policy.ts: the two GETs only).
// Secrets (keys, card_cipher) never reach a message or a log.
import { words } from '../words/words.shared.js';
import type { Logger } from 'pino';
import { realSleep, systemClock, type Clock, type Sleep } from '../clock.js';
import { CURRENCY_CODE, formatMinor, isKnownCurrency } from '../money/index.js';
import { AuthenticationError, ServiceError, ValidationError } from './errors.js';
import type {
  InitializeAccepted,
  InitializeRequest,
  MerchantKeys,
  PaymentOption,
  PaymentOptionsQuery,
  ServiceClient,
  WalletBalance,
} from './types.js';
import { balancesDataSchema, providersDataSchema } from './wire.js';
import { createExchange, isTransportFailure, parseBaseUrl, type Exchange, type RawResponse } from './transport.js';
import { parseRetryAfter, shape, successData, type AnswerContext, type Op } from './answers.js';
import { initializeAnswer } from './initialize-answer.js';
import { redactor, type Redact } from './answer-text.js';
import { SERVICE_JSON_LIMITS } from './wire-json.js';
import { initializeTransportError, transportError } from './no-answer.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, shouldRetry, type RetryPolicy } from './retry-policy.js';

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

/** What every request of one client shares. */
interface Connection {
  keys: ServiceClientOptions['keys'];
  exchange: Exchange;
  ctx: AnswerContext;
  policy: RetryPolicy;
  sleep: Sleep;
  random: () => number;
  clock: Clock;
  log: Logger | undefined;
}

export function createServiceClient(opts: ServiceClientOptions): ServiceClient {
  const { base, origin } = parseBaseUrl(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const clock = opts.clock ?? systemClock;
  const c: Connection = {
    keys: () => opts.keys(),
    exchange: createExchange({
      base,
      timeoutMs,
      fetch: opts.fetch ?? fetch,
      maxBodyBytes: SERVICE_JSON_LIMITS.maxBytes,
    }),
    ctx: { origin, timeoutMs, now: () => clock.now() },
    policy: {
      retries: opts.retries ?? DEFAULT_RETRY_POLICY.retries,
      backoffBaseMs: opts.backoffBaseMs ?? DEFAULT_RETRY_POLICY.backoffBaseMs,
      backoffMaxMs: opts.backoffMaxMs ?? DEFAULT_RETRY_POLICY.backoffMaxMs,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    },
    sleep: opts.sleep ?? realSleep,
    random: opts.random ?? Math.random,
    clock,
    log: opts.logger,
  };
  return {
    getBalances: (currency) => getBalances(c, currency),
    getPaymentOptions: (query = {}) => getPaymentOptions(c, query),
    initialize: (req) => initialize(c, req),
  };
}

async function getKeys(c: Connection): Promise<MerchantKeys> {
  const k = await c.keys();
  if (!k || !k.publicKey) throw new AuthenticationError(words('service.noPublicKey'));
  return k;
}

/** GET with retries on network errors, 5xx and 429 (jittered exponential back-off, Retry-After honoured). */
async function getWithRetry(
  c: Connection,
  op: Op,
  path: string,
  headers: Record<string, string>,
  redact: Redact,
): Promise<{ raw: RawResponse; data: unknown }> {
  const { clock, log } = c;
  for (let attempt = 0; ; attempt++) {
    const started = clock.now();
    const r = await c.exchange('GET', path, headers);
    let err: ServiceError;
    let retryAfterMs: number | undefined;
    if (!isTransportFailure(r)) {
      retryAfterMs = parseRetryAfter(r.headers.get('retry-after'), clock.now());
      try {
        const data = successData(c.ctx, op, r, redact);
        log?.debug({ op, status: r.status, attempt, ms: clock.now() - started }, 'service request ok');
        return { raw: r, data };
      } catch (e) {
        if (!(e instanceof ServiceError)) throw e;
        err = e;
      }
    } else {
      err = transportError(c.ctx, op, r);
    }
    const retry = shouldRetry(attempt, { kind: err.kind, retryAfterMs }, { method: 'GET', idempotent: true }, c.policy);
    log?.warn({ op, attempt, status: err.status, kind: err.kind, retryable: retry }, 'service request failed');
    if (!retry) throw err;
    await c.sleep(retryDelayMs(attempt, retryAfterMs, c.random(), c.policy));
  }
}

async function getBalances(c: Connection, currency?: string): Promise<WalletBalance[]> {
  const keys = await getKeys(c);
  if (!keys.secretKey) throw new AuthenticationError(words('service.noSecretBalances'));
  const q = currency === undefined || currency === '' ? '' : `?currency=${encodeURIComponent(checkCurrency(currency))}`;
  const headers = { ...baseHeaders(), 'public-key': keys.publicKey, 'secret-key': keys.secretKey };
  const redact = redactor([keys.publicKey, keys.secretKey]);
  const { raw, data } = await getWithRetry(c, 'balances', `/data/wallet-balances${q}`, headers, redact);
  return shape<{ merchant_balances: WalletBalance[] }>('balances', raw, data, balancesDataSchema, redact)
    .merchant_balances;
}

async function getPaymentOptions(c: Connection, query: PaymentOptionsQuery): Promise<PaymentOption[]> {
  const keys = await getKeys(c);
  const params = new URLSearchParams();
  if (query.currency) params.set('currency', checkCurrency(query.currency));
  if (query.transactionType) {
    const t = query.transactionType.trim().toUpperCase();
    if (!/^[A-Z_]{1,40}$/.test(t)) throw new ValidationError(words('service.transactionType'), 'transaction_type');
    params.set('transaction_type', t);
  }
  const q = params.toString() === '' ? '' : `?${params.toString()}`;
  // The payment options request takes the public key only: the secret key is not sent where it is not asked for.
  const headers = { ...baseHeaders(), 'public-key': keys.publicKey };
  const redact = redactor([keys.publicKey, keys.secretKey]);
  const { raw, data } = await getWithRetry(c, 'providers', `/data/payment-providers${q}`, headers, redact);
  return shape<{ payment_providers: PaymentOption[] }>('providers', raw, data, providersDataSchema, redact)
    .payment_providers;
}

/** Sent once: a POST is never retried here (retry-policy.ts), since a second send could charge twice. */
async function initialize(c: Connection, req: InitializeRequest): Promise<InitializeAccepted> {
  const { clock, log } = c;
  const keys = await getKeys(c);
  if (!keys.secretKey) throw new AuthenticationError(words('service.noSecretCharge'));
  const body = initializeBody(req);
  const headers = {
    ...baseHeaders(),
    'Content-Type': 'application/json',
    'public-key': keys.publicKey,
    'secret-key': keys.secretKey,
  };
  const redact = redactor([keys.publicKey, keys.secretKey, req.cardCipher]);
  const started = clock.now();
  const r = await c.exchange('POST', '/collections/initialize', headers, body);
  if (isTransportFailure(r)) {
    const reason = r.notSent ? undefined : r.timeout ? 'timeout' : 'connection';
    if (reason === undefined)
      log?.warn({ op: 'initialize', reference: req.merchantReference, code: r.code }, 'initialize not sent');
    else
      log?.warn(
        { op: 'initialize', reference: req.merchantReference, reason, code: r.code },
        'initialize outcome unknown',
      );
    throw initializeTransportError(c.ctx, r);
  }
  log?.info(
    { op: 'initialize', reference: req.merchantReference, status: r.status, ms: clock.now() - started },
    'initialize answered',
  );
  return initializeAnswer(c.ctx, r, redact, req.merchantReference);
}

/**
 * The initialize JSON, with the amount written as a JSON number from its decimal string (1500.50),
 * never through a float. Checks what the client itself can (amount, currency); the service checks the rest.
 */
export function initializeBody(req: InitializeRequest): string {
  const currency = checkCurrency(req.currency);
  if (!Number.isSafeInteger(req.amountMinor) || req.amountMinor <= 0) {
    throw new ValidationError(words('service.amount'), 'amount');
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
  return (
    '{' +
    fields.map(([k, v]) => `${JSON.stringify(k)}:${v === RAW_AMOUNT ? amountText : JSON.stringify(v)}`).join(',') +
    '}'
  );
}

const RAW_AMOUNT = Symbol('amount');

function baseHeaders(): Record<string, string> {
  return { 'x-api-version': '1', Accept: 'application/json' };
}

function checkCurrency(c: string): string {
  const u = c.trim().toUpperCase();
  if (!CURRENCY_CODE.test(u)) throw new ValidationError(words('service.currency'), 'currency');
  if (!isKnownCurrency(u)) throw new ValidationError(words('service.currencyUnknown', { currency: u }), 'currency');
  return u;
}
