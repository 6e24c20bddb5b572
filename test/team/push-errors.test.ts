// What the outbox push makes of a failed send (team/sync/push.ts isOutage): a lost connection is an
// outage (the event is kept and sent again), only the database's own refusal marks it refused. The
// errors are shaped as pg and Node raise them, through the one translation (team/errors.ts).
import { describe, expect, it } from 'vitest';
import { translatePgError, TeamFieldError } from '../../main/team/errors.js';
import { isOutage } from '../../main/team/sync/push-round.js';
import { DeskError } from '../../main/errors.shared.js';

function pgError(message: string, code?: string, extra: Record<string, string> = {}): Error {
  return Object.assign(new Error(message), code ? { code } : {}, extra);
}
const sent = (e: Error) => translatePgError(e, 'append events', 'sam');

describe('a failed send', () => {
  it.each([
    ['a connection dropped mid-statement (no SQLSTATE)', pgError('Connection terminated unexpectedly')],
    ['a connect timeout', pgError('timeout exceeded when trying to connect')],
    ['a reset socket', pgError('read ECONNRESET', 'ECONNRESET')],
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['pg_terminate_backend / admin shutdown', pgError('terminating connection due to administrator command', '57P01')],
    ['a connection failure (08006)', pgError('connection failure', '08006')],
    // The team day, seed 12: a line gone silent mid-transaction; PostgreSQL ended the session.
    [
      'a session ended for an idle transaction (25P03)',
      pgError('terminating connection due to idle-in-transaction timeout', '25P03'),
    ],
    ['a session ended for being idle (57P05)', pgError('terminating connection due to idle-session timeout', '57P05')],
    ['another class 08 code', pgError('protocol violation', '08P01')],
    ['a deadlock', pgError('deadlock detected', '40P01')],
    ['too many connections', pgError('sorry, too many clients already', '53300')],
    ['an error that is not the database at all', new TypeError('x is not a function')],
  ])('%s is an outage: kept and sent again', (_what, e) => {
    expect(isOutage(sent(e))).toBe(true);
  });

  it.each([
    [
      'insufficient privilege (a source the role may not write)',
      pgError('new row violates row-level security policy for table "events"', '42501'),
      /^sam may not append events: new row violates row-level security policy/,
    ],
    [
      'a check constraint',
      pgError('new row violates check constraint', '23514', { constraint: 'events_currency_check', table: 'events' }),
      /^currency: value refused by the database \(events_currency_check\)$/,
    ],
    ['a data exception', pgError('invalid input syntax for type bigint', '22P02'), /invalid input syntax/],
    ['a value out of range', pgError('value out of range', '22003'), /value out of range/],
  ])('%s is a refusal, with its reason', (_what, e, reason) => {
    const t = sent(e);
    expect(isOutage(t)).toBe(false);
    expect(t.message).toMatch(reason);
  });

  it('the event check before sending is a refusal too (it would fail the same way every time)', () => {
    expect(isOutage(new TeamFieldError('events[0].currency', 'must be a three-letter code'))).toBe(false);
  });

  it('every team error is a DeskError a person may read, with its kind', () => {
    const lost = sent(pgError('Connection terminated unexpectedly'));
    expect(lost).toBeInstanceOf(DeskError);
    expect(lost).toMatchObject({ kind: 'team_unavailable', expose: true });
    expect(sent(pgError('permission denied for table events', '42501'))).toMatchObject({
      kind: 'permission',
      message: 'sam may not append events: permission denied for table events',
    });
  });
});
