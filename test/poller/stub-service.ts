// A tiny local stand-in for the service on 127.0.0.1, for answers the poller must survive (HTML,
// truncated JSON, wrong types, 429, 503, a held response). Real HTTP, real client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type StubMode = 'ok' | 'html' | 'truncated_json' | 'wrong_types' | '503' | '429' | 'hold';

export interface StubService {
  baseUrl: string;
  mode: StubMode;
  retryAfterS: number;
  balances: Record<string, unknown>[];
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  /** Answers every held request (mode 'hold') as 'ok'. */
  release(): void;
  held(): number;
  close(): Promise<void>;
}

export const defaultBalances = (): Record<string, unknown>[] => [
  {
    available_balance: 1500000,
    actual_balance: 1750000,
    uncleared_balance: 200000,
    reserve_balance: 50000,
    currency: 'UGX',
    wallet_type: 'MERCHANT_COLLECTION',
  },
  {
    available_balance: 1234.5,
    actual_balance: 1234.5,
    uncleared_balance: 0,
    reserve_balance: 0,
    currency: 'KES',
    wallet_type: 'MERCHANT_PAYOUT',
  },
];

const providers = [
  {
    provider_name: 'MTN Mobile Money',
    provider_code: 'MTN_UGX',
    transaction_method: 'MOBILE_MONEY',
    transaction_method_name: 'Mobile Money',
    transaction_type: 'Collection',
    transaction_currency: 'UGX',
    min_amount: 500,
    max_amount: 5000000,
    max_daily_amount: 20000000,
    is_active: true,
    option_prefixes: ['25677', '25678'],
  },
  {
    provider_name: 'Card',
    provider_code: 'CARD_UGX',
    transaction_method: 'CARD',
    transaction_method_name: 'Card',
    transaction_type: 'Collection',
    transaction_currency: 'UGX',
    min_amount: 1000,
    max_amount: 10000000,
    max_daily_amount: 50000000,
    is_active: true,
    option_prefixes: [],
  },
];

export async function startStub(): Promise<StubService> {
  const held: (() => void)[] = [];
  const stub = {} as StubService;
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    stub.requests.push({ path, headers: req.headers });
    const send = (status: number, body: string, type = 'application/json', extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...extra });
      res.end(body);
    };
    const ok = () => {
      const data = path.startsWith('/data/wallet-balances')
        ? { merchant_balances: stub.balances }
        : path.startsWith('/data/payment-providers')
          ? { payment_providers: providers }
          : null;
      if (!data) return send(404, JSON.stringify({ code: 404, status: 'error', message: 'not found', data: null }));
      send(200, JSON.stringify({ code: 200, status: 'success', message: 'ok', data }));
    };
    switch (stub.mode) {
      case 'ok':
        return ok();
      case 'html':
        return send(200, '<html><body><h1>Maintenance</h1></body></html>', 'text/html');
      case 'truncated_json':
        return send(
          200,
          '{"code":200,"status":"success","message":"ok","data":{"merchant_balances":[{"available_bal',
          'application/json',
        );
      case 'wrong_types': {
        const body = {
          code: 200,
          status: 'success',
          message: 'ok',
          data: {
            merchant_balances: [{ available_balance: 'lots', actual_balance: true, currency: 7, wallet_type: null }],
            payment_providers: [{ provider_code: 5, min_amount: 'x' }],
          },
        };
        return send(200, JSON.stringify(body));
      }
      case '503':
        return send(
          503,
          JSON.stringify({ code: 503, status: 'error', message: 'Service temporarily unavailable', data: null }),
        );
      case '429':
        return send(
          429,
          JSON.stringify({ code: 429, status: 'error', message: 'Too many requests', data: null }),
          'application/json',
          {
            'retry-after': String(stub.retryAfterS),
          },
        );
      case 'hold':
        held.push(ok);
        return;
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  Object.assign(stub, {
    baseUrl: `http://127.0.0.1:${port}`,
    mode: 'ok' as StubMode,
    retryAfterS: 120,
    balances: defaultBalances(),
    requests: [],
    release() {
      stub.mode = 'ok';
      while (held.length) held.shift()!();
    },
    held: () => held.length,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return stub;
}
