// The signed-in operator's standing (their role, and whether they are still enabled) as the team
// database holds it now, not as it was at sign-in. PostgreSQL applies a new role from the operator's
// next transaction, so a desk that kept the sign-in's role offered what the database then refused. It
// is read at sign-in (unlocker.ts), then again:
// - when the database announces a change to this login (team migration 14: NOTIFY team_operators at
//   commit, heard on the sync's listening connection), or may have gone unheard (the listener connected
//   again): within moments of the admin's change;
// - every `everyMs` (default 5 s, the periodic pull's period), because a notification can be lost;
// - when a refusal needs the role the database holds now (refresh()).
// Reads run one at a time; those asked for meanwhile share the next one.
import type pg from 'pg';
import { TeamDisabledError } from './errors.js';
import { currentOperator } from './operators.js';
import type { TeamRole } from './roles.shared.js';

export interface OperatorStanding {
  /** The role as last read. */
  readonly role: TeamRole;
  /**
   * Reads the operator's row now: the role the database holds, or null when it cannot be read (offline,
   * or the operator was disabled: onDisabled is told).
   */
  refresh(): Promise<TeamRole | null>;
  /** The database announced a change to `login`'s row (null: one may have gone unheard). */
  heard(login: string | null): void;
  /** The role a sign-in just read (signing in again after the idle lock). */
  signedInAs(role: TeamRole): void;
  close(): void;
}

export interface StandingOptions {
  pool: pg.Pool;
  login: string;
  role: TeamRole;
  /** How often the row is read when nothing was heard (default 5 s; 0: only when heard or asked). */
  everyMs?: number;
  /** The role changed; `by`: the login that changed it (the row's changed_by, set by the database), when read. */
  onRole(role: TeamRole, was: TeamRole, by: string | null): void;
  /** An admin disabled the operator (`by` when the row says who, else null); told once. */
  onDisabled(by: string | null): void;
  logger: { warn(obj: object, msg?: string): void };
}

export const STANDING_EVERY_MS = 5_000;

export function watchStanding(o: StandingOptions): OperatorStanding {
  let role = o.role;
  let closed = false;
  let disabled = false;
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<TeamRole | null> | null = null;
  let failedBefore = false;

  function disable(by: string | null): void {
    if (disabled || closed) return;
    disabled = true;
    o.onDisabled(by);
  }

  async function readOnce(): Promise<TeamRole | null> {
    if (closed || disabled) return null;
    let op;
    try {
      op = await currentOperator(o.pool);
      failedBefore = false;
    } catch (e) {
      if (closed) return null; // the session's pool ended under it
      if (e instanceof TeamDisabledError) {
        disable(null);
        return null;
      }
      // Offline or refused: the sync says so in the status bar; the role stays as last read.
      if (!failedBefore) o.logger.warn({ err: e }, 'team: cannot read the signed-in operator now');
      failedBefore = true;
      return null;
    }
    if (closed) return null;
    if (!op) return role; // not a team operator (the schema owner): nothing to follow
    if (op.disabledAt !== null) {
      disable(op.changedBy);
      return null;
    }
    if (op.role !== role) {
      const was = role;
      role = op.role;
      o.onRole(role, was, op.changedBy);
    }
    return role;
  }

  function refresh(): Promise<TeamRole | null> {
    if (closed) return Promise.resolve(null);
    if (waiting) return waiting;
    const p = tail.then(() => {
      waiting = null;
      return readOnce();
    });
    waiting = p;
    tail = p.catch(() => undefined);
    return p;
  }

  const everyMs = o.everyMs ?? STANDING_EVERY_MS;
  const timer = everyMs > 0 ? setInterval(() => void refresh(), everyMs) : undefined;
  timer?.unref?.();

  return {
    get role() {
      return role;
    },
    refresh,
    heard(login) {
      if (login === null || login === o.login) void refresh();
    },
    signedInAs(next) {
      if (next === role) return;
      const was = role;
      role = next;
      o.onRole(next, was, null);
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
