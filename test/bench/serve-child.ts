// One `serve` instance for the serve bench (serve.ts), in a process of its own so that its CPU is its
// own: startServe of the source tree given (this one by default, or an older one for a before/after
// run), receiving only (no poller), with the loopback allowance instead of the rate limit (the bench
// posts from loopback with no proxy in front), logs to /dev/null. Prints one JSON line with its URL once
// listening; SIGTERM closes it (in-flight deliveries committed) and exits.
//   node --import tsx test/bench/serve-child.ts <tree> <json options>
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

type ServerModule = typeof import('../../main/serve/server.js');
type LoggerModule = typeof import('../../main/log/logger.js');
type PinoModule = typeof import('pino');

const [tree, json] = process.argv.slice(2);
const o = JSON.parse(json!) as {
  databaseUrl: string;
  dataDir: string;
  signingKey: string;
  servicePublicKey: string | null;
  verifyThreads?: number;
};
const load = async <T>(rel: string) => (await import(pathToFileURL(path.join(tree!, rel)).href)) as T;
const { startServe } = await load<ServerModule>('main/serve/server.ts');
const { createLogger } = await load<LoggerModule>('main/log/logger.ts');
const pino = (await import('pino')) as unknown as PinoModule & { default: PinoModule['default'] };
const serve = await startServe({
  databaseUrl: o.databaseUrl,
  host: '127.0.0.1',
  port: 0,
  verification: { signingKey: o.signingKey, servicePublicKey: o.servicePublicKey },
  poll: null,
  dataDir: o.dataDir,
  rateLimit: { loopbackPerSecond: 1_000_000, loopbackBurst: 1_000_000 },
  ...(o.verifyThreads !== undefined ? { verifyThreads: o.verifyThreads } : {}),
  logger: createLogger({ level: 'info', destination: pino.default.destination({ dest: '/dev/null', sync: true }) }),
});
process.stdout.write(JSON.stringify({ url: serve.url, pid: process.pid }) + '\n');
// SIGUSR2: the measured callbacks start; what is printed at the end counts from here (the warm-up's left out).
// An older tree's serve has no storeStats: only the event loop's figures then.
const storeStats = () => (typeof serve.storeStats === 'function' ? serve.storeStats() : null);
let mark = { elu: performance.eventLoopUtilization(), receiver: serve.receiver.stats(), store: storeStats() };
process.on('SIGUSR2', () => {
  mark = { elu: performance.eventLoopUtilization(), receiver: serve.receiver.stats(), store: storeStats() };
  process.stdout.write(JSON.stringify({ marked: true }) + '\n');
});
/** b - a for each numeric field. */
const minus = <T extends object>(b: T, a: T | null): T =>
  Object.fromEntries(
    Object.entries(b).map(([k, v]) => [k, typeof v === 'number' && a ? v - (a as Record<string, number>)[k]! : v]),
  ) as T;
process.once('SIGTERM', () => {
  // The event loop's share of busy time over the measured callbacks (before the close's drain).
  const elu = performance.eventLoopUtilization(mark.elu);
  const receiver = minus(serve.receiver.stats(), mark.receiver);
  const store = storeStats();
  void serve.close().then(() => {
    const stats = serve.receiver.stats();
    process.stdout.write(
      JSON.stringify({
        closed: true,
        stats,
        measured: { loopBusy: elu.utilization, receiver, store: store ? minus(store, mark.store) : null },
      }) + '\n',
    );
    process.exit(0);
  });
});
