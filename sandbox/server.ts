// One Fastify server: the service routes, the hosted payment page, and the /__sandbox test controls.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { SandboxCore } from './core.js';
import { ApiError, success, type Envelope } from './envelope.js';
import { sameKey } from './keys.js';
import { listWallets, walletToWire } from './wallets.js';
import { OPTIONS, TRANSACTION_TYPES } from './options.js';
import { toWire } from './money.js';
import { validateInitialize } from './initialize.js';
import { outcomeOf, paymentUrl } from './collections.js';
import { PAGE_CSP, renderNotFound, renderPaymentPage } from './page.js';
import { registerControlRoutes } from './control-routes.js';
import type { ActiveFault } from './types.js';

type ServiceRoute = 'balances' | 'providers' | 'initialize';

const HTML_ERROR = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`;

export function buildServer(core: SandboxCore): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, 'the request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof ApiError) return sendEnvelope(reply, err.code, err.envelope(), err.headers);
    const e = err as { statusCode?: number; message?: string };
    const code = e.statusCode && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
    const message = code === 500 ? 'internal error in the sandbox' : (e.message ?? 'bad request');
    return sendEnvelope(reply, code, { code, status: 'error', message, data: null });
  });
  app.setNotFoundHandler((req, reply) =>
    sendEnvelope(reply, 404, {
      code: 404,
      status: 'error',
      message: `no route ${req.method} ${req.url.split('?')[0]}`,
      data: null,
    }),
  );

  // ---- the service -------------------------------------------------------------------------
  app.get('/data/wallet-balances', (req, reply) =>
    service(core, 'balances', req, reply, 'both', () => {
      const currency = queryString(req, 'currency');
      const wallets = listWallets(core.db, currency === undefined || currency === '' ? undefined : currency);
      return {
        status: 200,
        body: success(200, 'success', 'Merchant balances retrieved successfully', {
          merchant_balances: wallets.map(walletToWire),
        }),
      };
    }),
  );

  app.get('/data/payment-providers', (req, reply) =>
    service(core, 'providers', req, reply, 'public', () => {
      const currency = queryString(req, 'currency');
      const type = queryString(req, 'transaction_type');
      if (core.strictOptions) {
        if (!currency) throw new ApiError(400, 'currency is required', { field: 'currency' });
        if (!type) throw new ApiError(400, 'transaction_type is required', { field: 'transaction_type' });
      }
      if (type !== undefined && type !== '' && !(TRANSACTION_TYPES as readonly string[]).includes(type)) {
        throw new ApiError(422, `transaction_type must be one of ${TRANSACTION_TYPES.join(', ')} (upper case)`, {
          field: 'transaction_type',
        });
      }
      const list = OPTIONS.filter(
        (o) =>
          (currency === undefined || currency === '' || o.transaction_currency === currency) &&
          (type === undefined || type === '' || o.transaction_type.toUpperCase() === type),
      ).map((o) => ({
        provider_name: o.provider_name,
        provider_code: o.provider_code,
        transaction_method: o.transaction_method,
        transaction_method_name: o.transaction_method_name,
        transaction_type: o.transaction_type,
        transaction_currency: o.transaction_currency,
        min_amount: toWire(o.minMinor, o.transaction_currency),
        max_amount: toWire(o.maxMinor, o.transaction_currency),
        max_daily_amount: toWire(o.maxDailyMinor, o.transaction_currency),
        is_active: o.is_active,
        option_prefixes: [...o.option_prefixes],
      }));
      return {
        status: 200,
        body: success(200, 'success', 'Payment providers retrieved successfully', { payment_providers: list }),
      };
    }),
  );

  app.post('/collections/initialize', (req, reply) =>
    service(core, 'initialize', req, reply, 'both', () => {
      const valid = validateInitialize(req.body, {
        heldCurrencies: core.heldCurrencies(),
        usedToday: (c) => core.collections.usedToday(c),
        checkDuplicate: (ref) => {
          const existing = core.collections.byReference(ref);
          if (existing) {
            throw new ApiError(
              422,
              `merchant_reference ${ref} is a duplicate: a collection with this reference already exists`,
              {
                field: 'merchant_reference',
                internal_reference: existing.internal_reference,
                payment_url: paymentUrl(core.baseUrl, existing),
              },
            );
          }
        },
        privateKey: core.serviceKeys.privateKey,
        now: core.clock.now(),
      });
      const c = core.collections.create(valid);
      return {
        status: 202,
        body: success(202, 'accepted', 'Collection initialized: load payment_url to complete the payment', {
          internal_reference: c.internal_reference,
          merchant_reference: c.merchant_reference,
          payment_url: paymentUrl(core.baseUrl, c),
        }),
      };
    }),
  );

  // ---- the hosted payment page ------------------------------------------------------------
  app.get('/pay/:token', (req, reply) => {
    core.tick();
    const c = core.collections.byToken((req.params as { token: string }).token);
    if (!c) return sendHtml(reply, 404, renderNotFound());
    return sendHtml(reply, 200, renderPaymentPage(c, core.merchant.merchantName, `/pay/${c.token}`));
  });

  app.post('/pay/:token', (req, reply) => {
    core.tick();
    const c = core.collections.byToken((req.params as { token: string }).token);
    if (!c) return sendHtml(reply, 404, renderNotFound());
    const form = (req.body ?? {}) as Record<string, unknown>;
    const action = typeof form.action === 'string' ? form.action : '';
    const self = `/pay/${c.token}`;
    // A finished payment only shows its state: no second charge.
    if (c.status !== 'PENDING') return sendHtml(reply, 200, renderPaymentPage(c, core.merchant.merchantName, self));
    let done;
    if (action === 'cancel') {
      done = core.collections.finish(c.merchant_reference, 'cancel', 'page');
    } else if (action === 'verify' && c.card.scenario === 'challenge') {
      const otp = typeof form.otp === 'string' ? form.otp.trim() : '';
      done = core.collections.finish(
        c.merchant_reference,
        otp === '123456' ? 'approve' : { status: 'FAILED', message: 'Authentication failed: wrong one-time code' },
        'page',
      );
    } else if (action === 'pay' || action === 'verify') {
      if (c.card.scenario === 'challenge') {
        core.collections.startChallenge(c);
        return sendHtml(
          reply,
          200,
          renderPaymentPage(
            c,
            core.merchant.merchantName,
            self,
            'Enter the one-time code your bank sent, then choose Verify.',
          ),
        );
      }
      done = core.collections.finish(c.merchant_reference, outcomeOf(c.card.scenario), 'page');
    } else {
      return sendHtml(
        reply,
        400,
        renderPaymentPage(c, core.merchant.merchantName, self, 'Choose Pay or Cancel payment.'),
      );
    }
    return reply
      .code(302)
      .header('location', core.collections.redirectUrl(done))
      .header('cache-control', 'no-store')
      .send();
  });

  registerControlRoutes(app, core);
  return app;
}

function queryString(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0].trim() : undefined;
  return typeof v === 'string' ? v.trim() : undefined;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function sendEnvelope(
  reply: FastifyReply,
  status: number,
  body: Envelope,
  headers: Record<string, string> = {},
) {
  return reply
    .code(status)
    .headers(headers)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .send(html);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Checks common to the service routes, faults before and after, and the answer. */
async function service(
  core: SandboxCore,
  route: ServiceRoute,
  req: FastifyRequest,
  reply: FastifyReply,
  auth: 'both' | 'public',
  handler: () => { status: number; body: Envelope },
): Promise<unknown> {
  const fault: ActiveFault | undefined = core.faults.take(route, queryString(req, 'currency'));
  switch (fault?.kind) {
    case 'latency':
      await sleep(fault.latency_ms);
      break;
    case '500':
      return sendEnvelope(reply, 500, { code: 500, status: 'error', message: 'Internal server error', data: null });
    case '503':
      return sendEnvelope(
        reply,
        503,
        { code: 503, status: 'error', message: 'Service temporarily unavailable', data: null },
        { 'retry-after': String(fault.retry_after_s) },
      );
    case 'html':
      return reply.code(502).header('content-type', 'text/html').send(HTML_ERROR);
    case 'rate_limit':
      return sendEnvelope(reply, 429, rateLimitedBody(fault.retry_after_s), {
        'retry-after': String(fault.retry_after_s),
      });
    case 'reset':
      reply.hijack();
      req.raw.socket.destroy();
      return;
    case 'answer':
      // A misbehaving service's answer, sent as the test wrote it (every digit of its numbers as given).
      return reply
        .code(fault.http_status)
        .header('content-type', 'application/json; charset=utf-8')
        .send(fault.body ?? '');
    default:
      break;
  }
  let status: number;
  let body: Envelope;
  let headers: Record<string, string> = {};
  try {
    const version = header(req, 'x-api-version');
    if (version === undefined || version.trim() === '') throw new ApiError(400, 'x-api-version header is required');
    if (version.trim() !== '1')
      throw new ApiError(400, `x-api-version ${version} is not supported; send x-api-version: 1`);
    checkAuth(core, req, auth);
    const limited = core.rateLimit(header(req, 'public-key')!);
    if (limited) throw new ApiError(429, rateLimitedBody(limited).message, null, { 'retry-after': String(limited) });
    core.tick();
    ({ status, body } = handler());
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    status = e.code;
    body = e.envelope();
    headers = e.headers;
  }
  if (fault?.kind === 'drop_after_commit') {
    reply.hijack();
    req.raw.socket.destroy();
    return;
  }
  let text = JSON.stringify(body);
  if (fault?.kind === 'wrong_types') text = JSON.stringify({ ...body, data: scramble(body.data) });
  if (fault?.kind === 'truncated_json') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  return reply.code(status).headers(headers).header('content-type', 'application/json; charset=utf-8').send(text);
}

function rateLimitedBody(retryAfterS: number): Envelope {
  return { code: 429, status: 'error', message: `too many requests: retry after ${retryAfterS} second(s)`, data: null };
}

function checkAuth(core: SandboxCore, req: FastifyRequest, auth: 'both' | 'public'): void {
  const pub = header(req, 'public-key');
  if (pub === undefined || pub === '') throw new ApiError(401, 'public-key header is required');
  if (!sameKey(pub, core.merchant.publicKey)) throw new ApiError(401, 'public-key is not valid');
  if (auth === 'both') {
    const sec = header(req, 'secret-key');
    if (sec === undefined || sec === '') throw new ApiError(401, 'secret-key header is required');
    if (!sameKey(sec, core.merchant.secretKey)) throw new ApiError(401, 'secret-key is not valid for this public-key');
  }
}

/** wrong_types: every number becomes a string that is not a number, every string a number. */
function scramble(v: unknown): unknown {
  if (typeof v === 'number') return 'n/a';
  if (typeof v === 'string') return 12345;
  if (typeof v === 'boolean') return 'yes';
  if (Array.isArray(v)) return v.map(scramble);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scramble(x)]));
  return v;
}
