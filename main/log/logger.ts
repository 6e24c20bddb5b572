// The app's logger: pino, with every key and card-ish value redacted (see redact.ts) in merged objects,
// child bindings and messages, writing to <dataDir>/logs/merchant-desk.log (or a given destination).
import fs from 'node:fs';
import path from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactDeep, scrubString } from './redact.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** Logs go to <dataDir>/logs/merchant-desk.log (created 0700/0600). */
  dataDir?: string;
  /** Default 'info' (MERCHANT_DESK_LOG_LEVEL overrides when set). */
  level?: pino.LevelWithSilent;
  /** Overrides the file: any pino destination (a stream; tests use one). Default without dataDir: stderr. */
  destination?: DestinationStream | NodeJS.WritableStream;
  /** Extra base fields (e.g. { shell: 'chromium' }). */
  base?: Record<string, unknown>;
}

export const LOG_FILE = 'merchant-desk.log';

export function logFilePath(dataDir: string): string {
  return path.join(dataDir, 'logs', LOG_FILE);
}

/** Keep at most this many old files (merchant-desk.log.1 ... .N), each rotated past maxBytes at start. */
export const LOG_ROTATE = { maxBytes: 10 * 1024 * 1024, keep: 3 };

/** At start-up: when the log is larger than maxBytes, shift it to .1 (.1 to .2, ...), dropping the oldest. */
export function rotateLogs(file: string, rotate = LOG_ROTATE): void {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return;
  }
  if (size <= rotate.maxBytes) return;
  for (let i = rotate.keep - 1; i >= 1; i--) {
    try {
      fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    } catch {
      /* that generation does not exist yet */
    }
  }
  fs.renameSync(file, `${file}.1`);
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  let dest: DestinationStream | NodeJS.WritableStream;
  if (opts.destination) {
    dest = opts.destination;
  } else if (opts.dataDir) {
    const dir = path.join(opts.dataDir, 'logs');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = logFilePath(opts.dataDir);
    rotateLogs(file);
    // Create with owner-only permissions before pino opens it for append.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    dest = pino.destination({ dest: file, sync: true, mkdir: true });
  } else {
    dest = pino.destination({ dest: 2, sync: true });
  }
  const level = (process.env.MERCHANT_DESK_LOG_LEVEL as pino.LevelWithSilent | undefined) ?? opts.level ?? 'info';
  const logger = pino(
    {
      level,
      base: { app: 'merchant-desk', ...(opts.base ?? {}) },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        log: (obj) => redactDeep(obj) as Record<string, unknown>,
        bindings: (b) => redactDeep(b) as Record<string, unknown>,
      },
      // Objects are already redacted (and errors made plain) by formatters.log; keep them as they are.
      serializers: { err: (e: unknown) => e, error: (e: unknown) => e },
      hooks: {
        logMethod(args, method) {
          const clean = args.map((a) => (typeof a === 'string' ? scrubString(a) : a)) as typeof args;
          return method.apply(this, clean);
        },
      },
    },
    dest as DestinationStream,
  );
  // pino does not run formatters.bindings for child loggers; redact their bindings here (children
  // inherit this method through the prototype chain).
  const child = logger.child;
  logger.child = function (this: Logger, bindings, options) {
    return child.call(this, redactDeep(bindings) as typeof bindings, options);
  } as typeof logger.child;
  return logger;
}

/** A logger that drops everything (tests that do not look at logs, tools). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
