// What a command says when it fails (issue 39, item 5): a person never reads an internal text ("Maximum
// call stack size exceeded", a stack, an error's class name). Our own errors (DeskError) are written for
// people and said as they are; a failure of the system we can name (a full disk, a permission, a damaged
// or busy database) is said in words; anything else says which command failed, what it may have left
// changed (each command says, Command.onFailure) and where the log is, and its detail goes to that log.
// The words are here, in one place, for the move to a message catalogue.
import { DeskError } from '../errors.shared.js';
import { createLogger, logFilePath } from '../log/logger.js';
import type { Command } from './command.js';

/** Node's and SQLite's codes for failures a person can act on, in words. */
const SYSTEM_FAILURES: Record<string, (e: { path?: string }) => string> = {
  ENOSPC: () => 'the disk is full',
  EDQUOT: () => 'the disk quota is used up',
  EACCES: (e) => `permission denied${e.path ? ` on ${e.path}` : ''}`,
  EPERM: (e) => `the operation is not permitted${e.path ? ` on ${e.path}` : ''}`,
  EROFS: (e) => `the file system is read-only${e.path ? ` (${e.path})` : ''}`,
  EMFILE: () => 'too many files are open; close some programs and try again',
  SQLITE_FULL: () => 'the disk is full',
  SQLITE_BUSY: () => 'the database is busy (another Merchant Desk is writing to it); try again',
  SQLITE_READONLY: () => 'the database cannot be written (a read-only file or folder)',
  SQLITE_CORRUPT: () => 'the database file is damaged; restore it from a backup',
  SQLITE_NOTADB: () => 'the database file is not a Merchant Desk database, or it is damaged',
  SQLITE_CANTOPEN: () => 'the database file cannot be opened (check the data folder and its permissions)',
};

/** The words for a system failure `e` is, or null. */
function systemFailure(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  const words = SYSTEM_FAILURES[code] ?? SYSTEM_FAILURES[code.replace(/_[A-Z]+$/, '')];
  return words ? words(e as { path?: string }) : null;
}

/**
 * A message of ours, written for a person: a DeskError (kind 'internal' is a fault of ours: its text is not),
 * or an error that says it is meant for people (`expose`, as the lock's errors do; ipc/dispatch.ts too).
 */
function ownWords(e: unknown): string | null {
  if (e instanceof DeskError) return e.kind !== 'internal' ? e.message : null;
  return e instanceof Error && (e as { expose?: unknown }).expose === true ? e.message : null;
}

/**
 * The lines a failed command prints on stderr (each will be prefixed "merchant-desk: "). A failure that is
 * not ours in words is logged with its detail in the data folder's log first.
 */
export function failureLines(e: unknown, command: Command | undefined, dataDir: string): string[] {
  const own = ownWords(e);
  if (own !== null) return [own];
  const name = command ? `${command.name} ` : '';
  const changes = command?.onFailure ?? 'nothing was changed';
  const where = logged(e, command, dataDir);
  const system = systemFailure(e);
  return [
    `${name}failed${system ? `: ${system}` : ' unexpectedly'}; ${changes}.`,
    where ? `The details are in ${where}.` : 'The details could not be written to the log.',
  ];
}

/** Logs the failure's detail where the command logs; where that is, or null when it cannot be written. */
function logged(e: unknown, command: Command | undefined, dataDir: string): string | null {
  try {
    const toStderr = command?.logsTo === 'standard error';
    const logger = toStderr ? createLogger() : createLogger({ dataDir });
    logger.error({ err: e, command: command?.name ?? null }, 'command failed');
    logger.flush();
    return toStderr ? 'the log line above (standard error)' : logFilePath(dataDir);
  } catch {
    return null;
  }
}
