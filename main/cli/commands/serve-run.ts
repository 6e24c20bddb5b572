// The body of `merchant-desk serve` (serve.ts loads it on use): reads the set-up (main/serve/config.ts),
// starts serve (main/serve/server.ts) and runs it until SIGTERM or SIGINT.
import { parseCommandArgs, UsageError, type CliContext } from '../command.js';
import { defaultDataDir } from '../../settings/paths.js';
import { createLogger } from '../../log/logger.js';
import { TeamError } from '../../team/errors.js';
import { loginOf } from '../../team/pool.js';
import { DEFAULT_TLS, transportOf } from '../../team/tls.js';
import { TLS_OPTIONS, tlsFromFlags } from '../team-tls.js';
import {
  DEFAULT_LISTEN,
  SECRETS,
  SETTINGS_ENV,
  ServeConfigError,
  databaseUrl,
  defaultServeDataDir,
  parseListen,
  positiveNumber,
  readSecret,
  wholeNumber,
  refuseSecretsInArgv,
  type SecretSources,
} from '../../serve/config.js';
import { startServe, type ServeOptions } from '../../serve/server.js';
import { messageOf } from '../../errors.shared.js';

const DEFAULT_INTERVALS = { balancesMs: 60_000, providersMs: 900_000 };

const SERVE_FLAGS = {
  database: { type: 'string' },
  listen: { type: 'string' },
  'service-url': { type: 'string' },
  'no-poll': { type: 'boolean', default: false },
  credentials: { type: 'string' },
  'trust-proxy': { type: 'string' },
  'journal-days': { type: 'string' },
  'restore-wait-seconds': { type: 'string' },
  'record-check-seconds': { type: 'string' },
  'rate-limit': { type: 'string' },
  'verify-threads': { type: 'string' },
  'poll-lease-seconds': { type: 'string' },
  ...TLS_OPTIONS,
} as const;

function parseServeArgs(args: string[]) {
  return parseCommandArgs({ args, options: SERVE_FLAGS, strict: true }).values;
}

type ServeFlags = ReturnType<typeof parseServeArgs>;
type Env = CliContext['env'];

/** The poller's service and keys, or null with --no-poll; refused naming each that is missing. */
function pollFrom(values: ServeFlags, env: Env, src: SecretSources): ServeOptions['poll'] {
  if (values['no-poll']) return null;
  const baseUrl = values['service-url'] ?? env[SETTINGS_ENV.serviceUrl];
  const publicKey = readSecret('merchantPublicKey', src);
  const secretKey = readSecret('merchantSecretKey', src);
  const missing = [
    baseUrl ? null : `the service URL (--service-url or ${SETTINGS_ENV.serviceUrl})`,
    publicKey ? null : `${SECRETS.merchantPublicKey.env} (or the credential file ${SECRETS.merchantPublicKey.file})`,
    secretKey ? null : `${SECRETS.merchantSecretKey.env} (or the credential file ${SECRETS.merchantSecretKey.file})`,
  ].filter((m): m is string => m !== null);
  if (missing.length) {
    throw new ServeConfigError(`the poller needs ${missing.join(', ')}; or pass --no-poll to receive callbacks only`);
  }
  return {
    baseUrl: baseUrl!,
    keys: { publicKey: publicKey!, secretKey: secretKey! },
    intervals: DEFAULT_INTERVALS,
  };
}

/** The keys callbacks are verified with: at least one of the two. */
function verificationFrom(src: SecretSources): ServeOptions['verification'] {
  const signingKey = readSecret('signingKey', src);
  const servicePublicKey = readSecret('servicePublicKey', src);
  if (!signingKey && !servicePublicKey) {
    throw new ServeConfigError(
      `no key to verify callbacks with: set ${SECRETS.signingKey.env} (or the credential file ${SECRETS.signingKey.file}) ` +
        `and/or ${SECRETS.servicePublicKey.env} (${SECRETS.servicePublicKey.file})`,
    );
  }
  return { signingKey, servicePublicKey };
}

/** A flag's text, or its environment variable's, and the label a refusal names it by. */
function flagText(
  values: ServeFlags,
  env: Env,
  flag:
    | 'journal-days'
    | 'restore-wait-seconds'
    | 'record-check-seconds'
    | 'rate-limit'
    | 'verify-threads'
    | 'poll-lease-seconds',
  name: keyof typeof SETTINGS_ENV,
): { text: string | undefined; label: string } {
  const given = values[flag];
  const text = given ?? env[SETTINGS_ENV[name]];
  const label = given !== undefined ? `--${flag}` : `--${flag} (${SETTINGS_ENV[name]})`;
  return { text: text === '' ? undefined : text, label };
}

/** The numbers serve may be tuned by: the journal and record watch (issue 29), the rate limit, threads, lease. */
function tuningFrom(values: ServeFlags, env: Env): Partial<ServeOptions> {
  // The journal of acknowledged callbacks and the watch that puts back what the record lost (issue 29).
  const number = (flag: Parameters<typeof flagText>[2], name: keyof typeof SETTINGS_ENV, unit: string, max: number) => {
    const { text, label } = flagText(values, env, flag, name);
    return text === undefined ? undefined : positiveNumber(text, label, unit, max);
  };
  const journalDays = number('journal-days', 'journalDays', 'days', 3_650);
  const restoreWait = number('restore-wait-seconds', 'restoreWaitSeconds', 'seconds', 86_400);
  const recordCheck = number('record-check-seconds', 'recordCheckSeconds', 'seconds', 3_600);
  const whole = (flag: Parameters<typeof flagText>[2], name: keyof typeof SETTINGS_ENV, min: number, max: number) => {
    const { text, label } = flagText(values, env, flag, name);
    return text === undefined ? undefined : wholeNumber(text, label, min, max);
  };
  // Callbacks a second from one source, bursts of five times that (the default, 200, is SERVE_RATE_LIMIT's).
  const rate = whole('rate-limit', 'rateLimit', 1, 1_000_000);
  const verifyThreads = whole('verify-threads', 'verifyThreads', 0, 64);
  const pollLease = whole('poll-lease-seconds', 'pollLeaseSeconds', 1, 3_600);
  return {
    ...(journalDays !== undefined ? { journalDays } : {}),
    ...(restoreWait !== undefined ? { restoreAfterMs: Math.round(restoreWait * 1000) } : {}),
    ...(recordCheck !== undefined ? { recordCheckEveryMs: Math.round(recordCheck * 1000) } : {}),
    ...(rate !== undefined
      ? { rateLimit: { perSecond: rate, burst: 5 * rate, loopbackPerSecond: rate, loopbackBurst: 5 * rate } }
      : {}),
    ...(verifyThreads !== undefined ? { verifyThreads } : {}),
    ...(pollLease !== undefined ? { pollLeaseSeconds: pollLease } : {}),
  };
}

/** serve's options from its flags, environment and credential files; a bad one is a usage error naming it. */
function serveOptionsFrom(values: ServeFlags, ctx: CliContext): Omit<ServeOptions, 'logger'> {
  const env = ctx.env;
  try {
    const src: SecretSources = { env, credentialsDir: values.credentials ?? env.CREDENTIALS_DIRECTORY ?? null };
    const dbUrl = databaseUrl(values.database, src);
    // A flag wins over its environment variable (systemd's Environment=), as for every other setting.
    const fromEnv = (flag: string | undefined, name: string) => (flag !== undefined ? flag : env[name] || undefined);
    const tls = tlsFromFlags(
      fromEnv(values.sslmode, SETTINGS_ENV.sslmode),
      fromEnv(values['ssl-ca'], SETTINGS_ENV.sslCa),
      {
        sslmode: values.sslmode !== undefined ? '--sslmode' : `--sslmode (${SETTINGS_ENV.sslmode})`,
        ca: values['ssl-ca'] !== undefined ? '--ssl-ca' : `--ssl-ca (${SETTINGS_ENV.sslCa})`,
      },
    );
    const { host, port } = parseListen(values.listen ?? env[SETTINGS_ENV.listen] ?? DEFAULT_LISTEN);
    const verification = verificationFrom(src);
    const poll = pollFrom(values, env, src);
    const trust = values['trust-proxy'] ?? env[SETTINGS_ENV.trustProxy];
    const tuning = tuningFrom(values, env);
    return {
      databaseUrl: dbUrl,
      tls,
      host,
      port,
      verification,
      poll,
      // The global --data-dir names serve's folder when given; the app's default folder is not serve's.
      dataDir: ctx.dataDir === defaultDataDir(env) ? defaultServeDataDir(env) : ctx.dataDir,
      ...tuning,
      ...(trust
        ? {
            trustProxy: trust
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }
        : {}),
    };
  } catch (e) {
    if (e instanceof ServeConfigError || e instanceof TeamError) throw new UsageError(e.message, { cause: e });
    throw e;
  }
}

/**
 * SIGTERM and SIGINT, listened for from now on (so one that arrives during start-up is not lost): the
 * first stops serve, a second while stopping exits at once.
 */
function listenForStop(logger: ReturnType<typeof createLogger>): { stopSignal: Promise<string>; off(): void } {
  let signalled: (signal: string) => void = () => undefined;
  const stopSignal = new Promise<string>((resolve) => (signalled = resolve));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping: exiting now');
      logger.flush();
      process.exit(1);
    }
    stopping = true;
    signalled(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    stopSignal,
    off() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

export async function runServe(args: string[], ctx: CliContext): Promise<number> {
  try {
    refuseSecretsInArgv(args);
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
  const values = parseServeArgs(args);
  const env = ctx.env;
  const options = serveOptionsFrom(values, ctx);

  const logger = createLogger({ base: { component: 'serve' } });
  const { stopSignal, off } = listenForStop(logger);
  const transport = transportOf(options.databaseUrl, options.tls ?? DEFAULT_TLS, env);
  // Said at every start, where the operator reads serve's log.
  if (transport.warning) logger.warn({ host: transport.host, sslmode: transport.mode }, transport.warning);
  try {
    const serve = await startServe({ ...options, logger });
    logger.info(
      {
        url: serve.url,
        host: serve.host,
        port: serve.port,
        login: loginOf(options.databaseUrl),
        sslmode: transport.mode,
        dataDir: options.dataDir,
        poll: options.poll ? 'on' : 'off',
        instance: serve.pollLease?.status().instance,
      },
      'serve listening',
    );
    const signal = await stopSignal;
    logger.info({ signal }, 'stopping: finishing deliveries in flight');
    await serve.close();
    logger.info({ stats: serve.receiver.stats(), verification: serve.verifier.stats() }, 'stopped');
    return 0;
  } catch (e) {
    logger.error({ err: messageOf(e) }, 'serve failed');
    throw e;
  } finally {
    off();
    logger.flush();
  }
}
