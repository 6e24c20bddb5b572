// The app's logger: pino, with every key and card-ish value redacted (see redact.ts) in merged objects,
// child bindings and messages, writing to <dataDir>/logs/merchant-desk.log (or a given destination).
import fs from 'node:fs';
import path from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactDeep, scrubString } from './redact.js';
import { ensurePrivateDir, ensurePrivateFile } from '../store/sqlite/private-files.js';

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
  /** Size rotation of the file log; default LOG_ROTATE. */
  rotate?: { maxBytes: number; keep: number };
}

export const LOG_FILE = 'merchant-desk.log';

export function logFilePath(dataDir: string): string {
  return path.join(dataDir, 'logs', LOG_FILE);
}

/** Keep at most this many old files (merchant-desk.log.1 ... .N); the current file is rotated past maxBytes. */
export const LOG_ROTATE = { maxBytes: 10 * 1024 * 1024, keep: 3 };

/** Shifts the log to .1 (.1 to .2, ...), dropping the oldest. */
function shiftGenerations(file: string, keep: number): void {
  for (let i = keep - 1; i >= 1; i--) {
    try {
      fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    } catch {
      /* that generation does not exist yet */
    }
  }
  fs.renameSync(file, `${file}.1`);
}

/** At start-up: when the log is larger than maxBytes, shift it to .1 (.1 to .2, ...), dropping the oldest. */
export function rotateLogs(file: string, rotate = LOG_ROTATE): void {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return;
  }
  if (size <= rotate.maxBytes) return;
  shiftGenerations(file, rotate.keep);
}

/**
 * A synchronous file destination that rotates while the app runs: once the current file passes
 * maxBytes, it is shifted to .1 and a new owner-only file is opened. The app runs for weeks; rotating
 * only at start-up would let one file grow without bound.
 */
function rotatingFile(file: string, rotate: { maxBytes: number; keep: number }): DestinationStream {
  const boom = pino.destination({ dest: file, sync: true, mkdir: true, mode: 0o600 });
  let size = fs.statSync(file).size;
  return {
    write(line: string) {
      boom.write(line);
      size += Buffer.byteLength(line);
      if (size > rotate.maxBytes) {
        try {
          shiftGenerations(file, rotate.keep);
          boom.reopen();
          size = 0;
        } catch {
          // Keep writing to the current file (a rename can fail, e.g. on a read-only folder); try again later.
          size = 0;
        }
      }
    },
    flush: (cb?: (err?: Error) => void) => boom.flush(cb),
    flushSync: () => boom.flushSync(),
    end: () => boom.end(),
  } as unknown as DestinationStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  let dest: DestinationStream | NodeJS.WritableStream;
  if (opts.destination) {
    dest = opts.destination;
  } else if (opts.dataDir) {
    const dir = path.join(opts.dataDir, 'logs');
    ensurePrivateDir(dir);
    const file = logFilePath(opts.dataDir);
    const rotate = opts.rotate ?? LOG_ROTATE;
    rotateLogs(file, rotate);
    // Owner-only (and tightened if an older version left it readable) before pino opens it for append.
    ensurePrivateFile(file);
    dest = rotatingFile(file, rotate);
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
