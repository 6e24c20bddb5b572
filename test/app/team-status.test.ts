// The status bar of a team desk, from the workspace's state alone: its connection is the team
// database's (it polls nothing: serve does), and an outage says the local copy is shown and since when.
import { describe, expect, it } from 'vitest';
import { clockTime, statusFrom, type StatusState } from '../../main/app/status.js';
import type { TeamLinkState } from '../../main/app/status.js';
import { chainWords, type TeamRollbackState } from '../../main/team/chain-words.shared.js';

const team = (o: Partial<TeamLinkState> = {}): TeamLinkState => ({
  login: 'amina',
  role: 'support',
  signedIn: true,
  online: true,
  lastSyncAt: Date.UTC(2026, 10, 23, 9, 41),
  reached: true,
  error: null,
  ...o,
});
const state = (t: TeamLinkState, o: Partial<StatusState> = {}): StatusState => ({
  profile: 'team',
  keychain: 'available',
  started: true,
  sandboxRunning: false,
  startError: null,
  connection: { ok: true },
  poller: null,
  lastSuccessFromLog: null,
  team: t,
  ...o,
});

describe('statusFrom on a team desk', () => {
  it('signed out: asks the operator to sign in', () => {
    expect(
      statusFrom(state(team({ signedIn: false, role: null, online: false, reached: false, lastSyncAt: null }))),
    ).toMatchObject({
      profile: 'team',
      connection: 'starting',
      message: 'Sign in as amina to reach the team database.',
    });
  });

  it('signed in, before the first pull: connecting; after it: online', () => {
    expect(statusFrom(state(team({ online: false, reached: false, lastSyncAt: null })))).toMatchObject({
      connection: 'starting',
      message: 'Connecting to the team database…',
    });
    const s = statusFrom(state(team()));
    expect(s).toMatchObject({ connection: 'online', message: null });
    expect(s.team).toEqual(team());
  });

  it('signed in, before the first pull, on a desk that synced before: connecting, and the local copy last synced then', () => {
    const at = Date.UTC(2026, 10, 23, 9, 41);
    const s = statusFrom(state(team({ online: false, reached: false, lastSyncAt: at })));
    expect(s).toMatchObject({ connection: 'starting', message: 'Connecting to the team database…' });
    expect(s.team?.lastSyncAt).toBe(at);
  });

  it('unreachable: says the local copy is shown and when it last synced', () => {
    const at = Date.UTC(2026, 10, 23, 9, 41);
    expect(statusFrom(state(team({ online: false, error: 'connect ECONNREFUSED', lastSyncAt: at })))).toMatchObject({
      connection: 'offline',
      message: `Team database unreachable — showing the local copy, last synced ${clockTime(at)}`,
    });
    expect(clockTime(at)).toMatch(/^\d\d:\d\d$/);
    expect(statusFrom(state(team({ online: false, error: 'connect ECONNREFUSED', lastSyncAt: null }))).message).toBe(
      'Team database unreachable — showing the local copy, not synced yet',
    );
  });

  it("this desk's outbox: events the team database refused are said while online; events waiting are said while offline", () => {
    expect(statusFrom(state(team({ outbox: { pending: 0, refused: 2 } })))).toMatchObject({
      connection: 'online',
      message: "2 of this desk's events were not accepted by the team database: their collections say why",
    });
    expect(statusFrom(state(team({ outbox: { pending: 0, refused: 1 } }))).message).toBe(
      "1 of this desk's events was not accepted by the team database: its collection says why",
    );
    expect(statusFrom(state(team({ outbox: { pending: 3, refused: 0 } })))).toMatchObject({
      connection: 'online',
      message: null,
    });
    const at = Date.UTC(2026, 10, 23, 9, 41);
    expect(
      statusFrom(state(team({ online: false, error: 'x', lastSyncAt: at, outbox: { pending: 3, refused: 0 } })))
        .message,
    ).toBe(
      `Team database unreachable — showing the local copy, last synced ${clockTime(at)}; 3 events of this desk wait to be sent, none is lost`,
    );
  });

  it('no service connection still comes first (a team desk charges with its own keys)', () => {
    expect(
      statusFrom(state(team(), { connection: { ok: false, message: 'the public key is not set' } })),
    ).toMatchObject({ connection: 'not_configured', message: 'the public key is not set' });
  });

  it('a new desktop copying the team history says how far behind it is', () => {
    expect(
      statusFrom(state(team({ online: false, catchingUp: { copiedSeq: 150_000, totalSeq: 3_618_747 } }))),
    ).toMatchObject({
      connection: 'starting',
      message: 'Catching up with the team: 3,468,747 events behind',
    });
  });

  it('a desk that was away, online and draining what it missed, says how many events behind it is', () => {
    const s = statusFrom(state(team({ online: true, catchingUp: { copiedSeq: 41_000, totalSeq: 50_000 } })));
    expect(s).toMatchObject({ connection: 'online', message: 'Catching up with the team: 9,000 events behind' });
    expect(s.team?.catchingUp).toEqual({ copiedSeq: 41_000, totalSeq: 50_000 }); // the progress bar's
    expect(statusFrom(state(team({ online: true, catchingUp: { copiedSeq: 49_999, totalSeq: 50_000 } }))).message).toBe(
      'Catching up with the team: 1 event behind',
    );
  });

  it('the team record not matching its hash chain is an alarm naming the first seq that does not match', () => {
    const fine = statusFrom(state(team({ chain: { verifiedSeq: 1_204, recheckedAt: 1, broken: null } })));
    expect(fine).toMatchObject({ connection: 'online', message: null });
    expect(chainWords(fine.team!.chain!)).toMatchObject({
      alarm: false,
      text: 'Team record verified through seq 1,204',
    });
    const broken = { seq: 77, reason: 'its content is not what was recorded (rewritten after it was written)' };
    expect(statusFrom(state(team({ chain: { verifiedSeq: 1_204, recheckedAt: 1, broken } })))).toMatchObject({
      connection: 'error',
      message:
        'Team record altered: seq 77 does not match its hash chain (its content is not what was recorded (rewritten after it was written)). This desk shows what it verified, through seq 1,204.',
    });
  });

  it('a record that went back in time (a failover, a restore) is said in its own words, never as the alarm', () => {
    const rollback: TeamRollbackState = {
      lostFrom: 42,
      lostTo: 82,
      commonSeq: 41,
      foundAt: 1,
      phase: 'restoring',
      previousHead: { seq: 82, hash: 'ab'.repeat(32) },
      restored: 0,
      present: 0,
      rebasedSeq: null,
      rebasedAt: null,
      unrestored: [],
      unrestoredCount: 0,
    };
    const chain = { verifiedSeq: 82, recheckedAt: 1, broken: null };
    expect(statusFrom(state(team({ chain, rollback })))).toMatchObject({
      connection: 'online',
      message:
        'The team database lost events 42–82, probably a failover or a restore from backup; this desk holds them and is putting back what it can. It shows what it verified, through seq 82.',
    });
    // Re-based with everything back: the status bar is quiet again (Settings, Team keeps the account).
    const done = { ...rollback, phase: 'rebased' as const, restored: 38, present: 3, rebasedSeq: 128, rebasedAt: 2 };
    expect(statusFrom(state(team({ chain, rollback: done })))).toMatchObject({ connection: 'online', message: null });
    // Events nobody put back are said for as long as they are not back.
    const unrestored = [
      { eventKey: 'k1', reference: 'MD-1', seq: 77, source: 'initiate', kind: 'initialize_accepted', reason: 'x' },
    ];
    expect(statusFrom(state(team({ chain, rollback: { ...done, unrestored, unrestoredCount: 1 } })))).toMatchObject({
      connection: 'online',
      message:
        'The team database lost events 42–82, probably a failover or a restore from backup; this desk holds them: it put back 38 events; 3 were back already; 1 event could not be put back by this desk (listed in Settings, Team). It follows the team record again from seq 128.',
    });
    // Offline, the outage is said first; the alarm outranks everything.
    expect(statusFrom(state(team({ chain, rollback, online: false, error: 'x' })))).toMatchObject({
      connection: 'offline',
    });
    const broken = { seq: 90, reason: 'its content is not what was recorded (rewritten after it was written)' };
    expect(statusFrom(state(team({ chain: { ...chain, broken }, rollback })))).toMatchObject({
      connection: 'error',
      message: expect.stringMatching(/^Team record altered: seq 90/),
    });
  });

  it('notifications that do not arrive are said while online, after a refusal and before a signature check', () => {
    const not = { arriving: false, checkedAt: 1, pullEveryMs: 1_000 };
    expect(statusFrom(state(team({ notifications: not })))).toMatchObject({
      connection: 'online',
      message: 'Notifications are not arriving: a transaction-mode pool? This desk catches up every 1 s',
    });
    // Proven, or not checked yet: nothing to say.
    for (const arriving of [true, null])
      expect(statusFrom(state(team({ notifications: { ...not, arriving } })))).toMatchObject({
        connection: 'online',
        message: null,
      });
    expect(statusFrom(state(team({ notifications: not, outbox: { pending: 0, refused: 1 } }))).message).toBe(
      "1 of this desk's events was not accepted by the team database: its collection says why",
    );
    expect(
      statusFrom(state(team({ notifications: not, signatures: { checked: 1, total: 9, failed: 0 } }))).message,
    ).toBe('Notifications are not arriving: a transaction-mode pool? This desk catches up every 1 s');
    // Offline says offline: the pull is what is missing then.
    expect(statusFrom(state(team({ notifications: not, online: false, error: 'x', lastSyncAt: null }))).message).toBe(
      'Team database unreachable — showing the local copy, not synced yet',
    );
  });

  it('a solo profile has no team field at all', () => {
    expect(statusFrom(state(team(), { profile: 'sandbox', team: null }))).not.toHaveProperty('team');
  });
});
