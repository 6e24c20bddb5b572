// `serve` of the team day as a process of its own, so the day can kill it with SIGKILL while a group of
// callbacks commits (startServe, as the CLI's serve command composes it, with its data folder: its
// journal of acknowledged callbacks survives the kill). Prints one line `listening PORT` once it takes
// callbacks.
//   MD_DAY_SERVE=<JSON: databaseUrl, port, dataDir, sandbox {baseUrl, publicKey, secretKey, signingKey,
//   servicePublicKeyPem}> node --import tsx serve-child.ts
import { startServe } from '../../../main/serve/server.js';
import { createLogger, silentLogger } from '../../../main/log/index.js';

const o = JSON.parse(process.env.MD_DAY_SERVE!) as {
  databaseUrl: string;
  port: number;
  dataDir: string;
  sandbox: { baseUrl: string; publicKey: string; secretKey: string; signingKey: string; servicePublicKeyPem: string };
};
const serve = await startServe({
  databaseUrl: o.databaseUrl,
  host: '127.0.0.1',
  port: o.port,
  verification: { signingKey: o.sandbox.signingKey, servicePublicKey: o.sandbox.servicePublicKeyPem },
  poll: {
    baseUrl: o.sandbox.baseUrl,
    keys: { publicKey: o.sandbox.publicKey, secretKey: o.sandbox.secretKey },
    intervals: { balancesMs: 60_000, providersMs: 60_000 },
  },
  dataDir: o.dataDir,
  logger: process.env.MD_DAY_DEBUG ? createLogger({ dataDir: o.dataDir, level: 'debug' }) : silentLogger(),
  rateLimit: { loopbackPerSecond: 100_000, loopbackBurst: 100_000 },
  // One verifier thread: the day's machine has two cores and seven more processes.
  verifyThreads: 1,
  restoreAfterMs: 2_000,
});
process.stdout.write(`listening ${serve.port}\n`);
process.on('SIGTERM', () => void serve.close().then(() => process.exit(0)));
// The test went away (killed, crashed): so does this serve, never left behind.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
