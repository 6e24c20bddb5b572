// One `serve` instance for the serve bench (serve.ts), in a process of its own so that its CPU is its
// own: startServe of the source tree given (this one by default, or an older one for a before/after
// run), receiving only (no poller), with the loopback allowance instead of the rate limit (the bench
// posts from loopback with no proxy in front), logs to /dev/null. Prints one JSON line with its URL once
// listening; SIGTERM closes it (in-flight deliveries committed) and exits.
//   node --import tsx test/bench/serve-child.ts <tree> <json options>
import path from 'node:path';
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
process.once('SIGTERM', () => {
  void serve.close().then(() => {
    const stats = serve.receiver.stats();
    process.stdout.write(JSON.stringify({ closed: true, stats }) + '\n');
    process.exit(0);
  });
});
