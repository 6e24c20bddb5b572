// What can go wrong talking to the team database, as errors a person can act on. PostgreSQL decides
// permissions and uniqueness; these classes only name the field or the refusal in plain words.
// They are one family inside DeskError (main/errors.shared.ts): translatePgError below is the one place a
// pg or network error becomes one of them, each class carries the kind the desk shows it with, and its
// message is written for a person, so IPC shows it as it is (main/ipc/dispatch.ts).
import { DeskError } from '../errors.shared.js';

/** How each team error is shown (IpcError.kind). */
export type TeamErrorKind =
  'refused' | 'validation' | 'conflict' | 'permission' | 'authentication' | 'team_unavailable';

export class TeamError extends DeskError {
  override name = 'TeamError';
  /** The PostgreSQL SQLSTATE (or Node's error code) behind this error, when there was one. */
  readonly code: string | undefined;
  constructor(
    message: string,
    code?: string,
    options?: { cause?: unknown },
    kind: TeamErrorKind = 'refused',
    field?: string,
  ) {
    super(kind, message, { expose: true, ...(field ? { field } : {}), cause: options?.cause });
    this.code = code;
  }
}

/** A value the caller gave is not acceptable; `field` names it (e.g. "events[2].currency"). */
export class TeamFieldError extends TeamError {
  override name = 'TeamFieldError';
  declare readonly field: string;
  constructor(
    field: string,
    message: string,
    code?: string,
    options?: { cause?: unknown },
    kind: TeamErrorKind = 'validation',
  ) {
    super(`${field}: ${message}`, code, options, kind, field);
  }
}

/** The merchant_reference already has an intent somewhere in the team: one charge per intent. */
export class ReferenceTakenError extends TeamFieldError {
  override name = 'ReferenceTakenError';
  constructor(
    readonly merchantReference: string,
    readonly createdBy: string | undefined,
    readonly createdAt: Date | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'merchant_reference',
      `${JSON.stringify(merchantReference)} already has an intent` +
        (createdBy ? ` (created by ${createdBy}${createdAt ? ` at ${createdAt.toISOString()}` : ''})` : '') +
        '; open that collection or use another reference',
      '23505',
      options,
      'conflict',
    );
  }
}

/** The signed-in login's role does not allow this (a grant, a row-level policy or an admin function refused). */
export class TeamPermissionError extends TeamError {
  override name = 'TeamPermissionError';
  constructor(message: string, code?: string, options?: { cause?: unknown }) {
    super(message, code, options, 'permission');
  }
}

/** Sign-in refused: wrong password, unknown login, or a disabled operator. */
export class TeamSignInError extends TeamError {
  override name = 'TeamSignInError';
  constructor(message: string, code?: string, options?: { cause?: unknown }) {
    super(message, code, options, 'authentication');
  }
}

/** Sign-in refused because an admin disabled the operator (NOLOGIN): said only to someone whose password was right. */
export class TeamDisabledError extends TeamSignInError {
  override name = 'TeamDisabledError';
}

/** The database could not be reached or dropped the connection; nothing was written by this call. */
export class TeamUnavailableError extends TeamError {
  override name = 'TeamUnavailableError';
  constructor(message: string, code?: string, options?: { cause?: unknown }) {
    super(message, code, options, 'team_unavailable');
  }
}

/**
 * TLS to the team database failed: the server's certificate did not pass the check, or the server offers
 * no TLS. An outage for what waits to be sent (it is kept and sent once the connection is right), but
 * said apart from one: it needs the set-up fixed, or it is someone posing as the server.
 */
export class TeamTlsError extends TeamUnavailableError {
  override name = 'TeamTlsError';
}

/** Node's codes for a certificate chain that does not lead to a CA we trust. */
const UNTRUSTED_CHAIN = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** A TLS failure in plain words, or null when `e` is not one. */
function tlsProblem(
  e: Error & { code?: string; host?: string; cert?: { subjectaltname?: string; subject?: { CN?: string } } },
): string | null {
  if (e.message === 'The server does not support SSL connections')
    return 'the server does not offer TLS (ssl is off there); turn TLS on at the server, or on a trusted network only, choose sslmode disable';
  if (e.message === 'There was an error establishing an SSL connection')
    return 'the server did not start TLS when asked';
  if (e.code && UNTRUSTED_CHAIN.has(e.code))
    return "the server's certificate is not signed by the CA you gave (--ssl-ca, or the CA certificate in Settings, Connection; with none given, by no public CA)";
  if (e.code === 'CERT_HAS_EXPIRED') return "the server's certificate has expired";
  if (e.code === 'CERT_NOT_YET_VALID') return "the server's certificate is not valid yet (check this computer's clock)";
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names =
      e.cert?.subjectaltname
        ?.split(/,\s*/)
        .map((n) => n.replace(/^(DNS|IP Address):/, ''))
        .join(', ') ||
      e.cert?.subject?.CN ||
      'another host';
    return `the server's certificate is for ${names}, not for ${e.host ?? 'the host in the database URL'}`;
  }
  return null;
}

interface PgErrorLike {
  code?: string;
  message: string;
  constraint?: string;
  column?: string;
  table?: string;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  // The server ended the session for an idle transaction or an idle session (a line gone silent mid-work):
  // the transaction was rolled back, nothing was refused, and the same call may succeed on a new connection.
  '25P03',
  '57P05',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** pg's words for a connection that went away without a SQLSTATE. */
const LOST_CONNECTION =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|connection error|not queryable|socket hang up/i;

/** `check` constraints are named <table>_<column>_check by PostgreSQL: the column is the field. */
function fieldOfConstraint(e: PgErrorLike): string | undefined {
  if (!e.constraint || !e.table) return undefined;
  const m = new RegExp(`^${e.table}_(.+)_check$`).exec(e.constraint);
  return m?.[1];
}

/**
 * Turns a pg (or network) error into one of the classes above. `doing` says what was attempted, in
 * words, e.g. "append events"; `login` whose permission was refused, when known.
 */
export function translatePgError(err: unknown, doing: string, login?: string): Error {
  if (err instanceof TeamError || !(err instanceof Error)) return err as Error;
  const e = err as Error & PgErrorLike;
  const code = e.code;
  const opts = { cause: err };
  const tls = tlsProblem(e);
  if (tls) return new TeamTlsError(`TLS to the team database failed: ${tls}; could not ${doing}`, code, opts);
  if (code === '28P01')
    return new TeamSignInError(
      `sign-in refused: wrong password or no such login${login ? ` (${login})` : ''}`,
      code,
      opts,
    );
  if (code === '28000') {
    // pg_hba.conf has only `hostssl` lines for this client: the server takes it over TLS only.
    if (/no pg_hba\.conf entry.*no encryption/.test(e.message))
      return new TeamTlsError(
        `the team database accepts this connection only over TLS; choose sslmode verify-full (and the CA certificate) rather than disable; could not ${doing}`,
        code,
        opts,
      );
    return /not permitted to log in/.test(e.message)
      ? new TeamDisabledError(
          `sign-in refused: the operator${login ? ` ${login}` : ''} is disabled; ask an admin`,
          code,
          opts,
        )
      : new TeamSignInError(`sign-in refused: ${e.message}`, code, opts);
  }
  if (code === '42501') {
    const who = login ? `${login} may not ${doing}` : `not allowed to ${doing}`;
    return new TeamPermissionError(`${who}: ${e.message}`, code, opts);
  }
  if (code === '23514') {
    if (e.constraint === 'events_manual_carries_no_status')
      return new TeamFieldError(
        'status',
        "a person's event (a resolution, source manual) carries no status: only the service's signature settles a payment",
        code,
        opts,
      );
    const field = fieldOfConstraint(e);
    if (field) return new TeamFieldError(field, `value refused by the database (${e.constraint})`, code, opts);
  }
  if (code === '23502' && e.column) return new TeamFieldError(e.column, 'is required', code, opts);
  if (code === '22023' || code === '42710' || code === '42704' || code === '55006') {
    // Our operator functions start their message with the field: "login: ...", "role must be ...".
    const m = /^([a-z_]+)(?::| must)/.exec(e.message);
    if (m) return new TeamFieldError(m[1]!, e.message.replace(/^[a-z_]+:\s*/, ''), code, opts);
    return new TeamError(`could not ${doing}: ${e.message}`, code, opts);
  }
  // A write that waited too long for its turn (team migration 8: lock_timeout), or a statement cancelled
  // (a writing transaction's statement_timeout): nothing was written, and a retry goes through once the
  // writer ahead is done or ended, so it is treated like an outage (kept and retried), never like a refusal.
  if (code === '55P03' || code === '57014') {
    const why =
      code === '55P03'
        ? 'the team database is busy: another writer held it too long'
        : 'the team database cancelled the statement';
    return new TeamUnavailableError(
      `${why} (${e.message}); nothing was written, could not ${doing}: try again`,
      code,
      opts,
    );
  }
  // A connection lost with no SQLSTATE (pg: "Connection terminated unexpectedly", a connect timeout) or a
  // connection-class one is an outage: nothing was refused, the same call may succeed later.
  if ((code && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) || (!code && LOST_CONNECTION.test(e.message))) {
    return new TeamUnavailableError(
      `the team database cannot be reached (${e.message}); could not ${doing}`,
      code,
      opts,
    );
  }
  return new TeamError(`could not ${doing}: ${e.message}`, code, opts);
}
