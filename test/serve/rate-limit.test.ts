// serve's rate limit as docs/serve.md deploys it: behind the merchant's reverse proxy on the same host,
// so every request reaches serve from loopback. Without --trust-proxy the proxy's address is one shared
// bucket (never exempt as loopback); with --trust-proxy each client (X-Forwarded-For) has its own.
// The proxy here is a small node http server that overwrites X-Forwarded-For with the client's address
// as the documented nginx does; clients are told apart by the loopback address they send from.
// Run: TMPDIR=<a folder the postgres user can reach> bash scripts/with-keyring.sh npx vitest run test/serve/rate-limit.test.ts
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../../main/callbacks/rate-limit.js';
import { stopServerSync } from '../support/postgres-server.js';
import { startServe, teamDatabase, type Serve, type TeamDb } from './harness.js';
import { fileTempDir } from '../support/tmp.js';

let team: TeamDb;
let dir: string;
const started: { serve: Serve; proxy: http.Server }[] = [];

beforeAll(async () => {
  dir = fileTempDir('md-serve-limit-');
  team = await teamDatabase();
}, 90_000);

afterAll(async () => {
  for (const a of clients.values()) a.destroy();
  for (const s of started) {
    s.proxy.close();
    if (s.serve.child.exitCode === null) s.serve.child.kill('SIGKILL');
  }
  await team?.owner.end().catch(() => undefined);
  if (team) stopServerSync(team.server.dir, team.server.binDir);
});

/** serve as the systemd unit starts it (loopback listener, callbacks only), behind a local proxy. */
async function serveBehindProxy(extra: string[]): Promise<{ proxyPort: number }> {
  const serve = await startServe(
    [
      '--data-dir',
      path.join(dir, `serve-${started.length}`),
      '--database',
      team.url,
      '--listen',
      '127.0.0.1:0',
      '--no-poll',
      ...extra,
    ],
    { PGPASSWORD: team.password, MERCHANT_DESK_SIGNING_KEY: crypto.randomBytes(32).toString('hex') },
  );
  const upstream = new URL(serve.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  // Hop-by-hop headers stay on their hop, as in any proxy: serve closing its connection after a 429
  // does not close the client's.
  const endToEnd = (h: http.IncomingHttpHeaders) => {
    const { connection: _c, 'keep-alive': _k, ...rest } = h;
    return rest;
  };
  const proxy = http.createServer((req, res) => {
    const headers = { ...endToEnd(req.headers), 'x-forwarded-for': req.socket.remoteAddress ?? '' };
    const up = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
      (r) => {
        res.writeHead(r.statusCode ?? 502, endToEnd(r.headers));
        r.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  started.push({ serve, proxy });
  return { proxyPort: (proxy.address() as AddressInfo).port };
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

// One client is one source address: its own keep-alive connections, as a real client's would be.
const clients = new Map<string, http.Agent>();
function clientAgent(from: string): http.Agent {
  let a = clients.get(from);
  if (!a) clients.set(from, (a = new http.Agent({ keepAlive: true, maxSockets: 50, localAddress: from })));
  return a;
}

/** One POST of an unsigned callback to the proxy, sent from `from` (a loopback address). */
function post(proxyPort: number, from: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = '{}';
    const req = http.request(
      {
        host: '127.0.0.1',
        port: proxyPort,
        method: 'POST',
        path: '/callbacks/collections',
        agent: clientAgent(from),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Flood {
  answers: Answer[];
  seconds: number;
  /** When the last request was sent: serve judged it after this, so its bucket refills from no earlier. */
  lastSentAt: number;
}

/** `n` requests from one client, 50 at a time; how long they took. */
async function flood(proxyPort: number, from: string, n: number): Promise<Flood> {
  const answers: Answer[] = [];
  const t0 = Date.now();
  let next = 0;
  let lastSentAt = t0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < n) {
        next++;
        lastSentAt = Date.now();
        answers.push(await post(proxyPort, from));
      }
    }),
  );
  return { answers, seconds: (Date.now() - t0) / 1000, lastSentAt };
}

/**
 * 2,000 requests from one client. The limit can only show when they come faster than it refills: a
 * machine too busy to send 2,000 within 5 s sends 1,000 more at a time, at most 6,000 in all (the
 * desktop's loopback allowance, which serve used to give the proxy, is 100,000).
 */
async function floodPastRefill(proxyPort: number, from: string): Promise<Flood> {
  const all = await flood(proxyPort, from, 2_000);
  while (!all.answers.some((a) => a.status === 429) && all.answers.length < 6_000) {
    const more = await flood(proxyPort, from, 1_000);
    all.answers.push(...more.answers);
    all.seconds += more.seconds;
    all.lastSentAt = more.lastSentAt;
  }
  return all;
}

function expectLimited({ answers, seconds }: { answers: Answer[]; seconds: number }) {
  const limited = answers.filter((a) => a.status === 429);
  const let_through = answers.length - limited.length;
  // The documented limit: bursts of 1,000, then 200 a second.
  expect(let_through).toBeLessThanOrEqual(
    DEFAULT_RATE_LIMIT.burst + Math.ceil(seconds * DEFAULT_RATE_LIMIT.perSecond) + 1,
  );
  expect(limited.length).toBeGreaterThan(0);
  for (const a of limited) expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('serve behind a local reverse proxy', () => {
  it('without --trust-proxy, limits everything from the proxy as one client (loopback is not exempt)', async () => {
    const { proxyPort } = await serveBehindProxy([]);
    const a = await floodPastRefill(proxyPort, '127.0.0.2');
    expectLimited(a);
    // Another client behind the same proxy shares the bucket the first one emptied: it gets only what
    // refilled since then, counted from when the first flood's last request was sent (serve judged it no
    // earlier; counted from its answer, a busy machine's time between the two let more refill than counted).
    const emptiedAt = a.lastSentAt;
    const b = await flood(proxyPort, '127.0.0.3', 300);
    const refilling = (Date.now() - emptiedAt) / 1000;
    const through = b.answers.filter((x) => x.status !== 429).length;
    expect(through).toBeLessThanOrEqual(2 + Math.ceil(refilling * DEFAULT_RATE_LIMIT.perSecond));
    expect(through).toBeLessThan(300);
  }, 120_000);

  it('with --trust-proxy, limits each client named by X-Forwarded-For on its own', async () => {
    const { proxyPort } = await serveBehindProxy(['--trust-proxy', '127.0.0.1']);
    const a = await floodPastRefill(proxyPort, '127.0.0.2');
    expectLimited(a);
    // A second client still has its own full bucket.
    const b = await flood(proxyPort, '127.0.0.3', 100);
    expect(b.answers.filter((x) => x.status === 429)).toEqual([]);
  }, 120_000);
});
