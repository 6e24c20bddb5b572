// serve's groups are a pipeline (issue 31): a group holds its commit slot until its commit is durable in
// the team record, not until its journal entries are written and its deliveries answered, so the next
// groups go to PostgreSQL meanwhile. A journal that is slow to write (a busy disk) must not hold the
// commits of the callbacks behind it; and still no delivery is answered before its own group's entries
// are kept. And the deliveries waiting are shared between the two commit slots rather than all put in
// one group, so that while one group commits the other is ready. The journal (or the write turn) is held
// on purpose here (the injected fault); the record is a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommitter, type CommitStats, type Delivered } from '../../main/callbacks/group-commit.js';
import type { JournalEntry, ServeJournal } from '../../main/serve/journal.js';
import { teamCallbackStore } from '../../main/serve/team-callback-store.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { teamFixture, type TeamFixture } from '../team/fixture.js';
import { until } from '../support/wait.js';

let team: TeamFixture;
let receiver: string;

beforeAll(async () => {
  team = await teamFixture();
  receiver = await team.addOperator('receiver');
});
afterAll(async () => {
  await team?.close();
});

/** A journal whose writes wait until the test lets them through (a disk that stalls). */
function stalledJournal() {
  const kept: { entries: readonly JournalEntry[]; done: () => void }[] = [];
  const journal = {
    days: 14,
    keep: (entries: readonly JournalEntry[]) => new Promise<void>((done) => kept.push({ entries, done })),
    prune: () => Promise.resolve(0),
    close: () => Promise.resolve(),
  } as unknown as ServeJournal;
  return { journal, kept };
}

const stored = async (reference: string) =>
  Number(
    (await team.owner.query('SELECT count(*) AS n FROM team.events WHERE merchant_reference = $1', [reference])).rows[0]
      .n,
  );

describe("serve's group commits", () => {
  it('go on to the team record while the journal of the groups before is still being written', async () => {
    const { journal, kept } = stalledJournal();
    const store = teamCallbackStore(team.signIn(receiver), { journal });
    const stats: CommitStats = { deliveries: 0, commits: 0, largestGroup: 0, fallbacks: 0 };
    const committer = groupCommitter({ getKeys: () => ({ signingKey: SIGNING_KEY }) }, store, stats);
    const answered = new Map<string, Delivered>();
    const submit = (reference: string) => {
      const body = callbackBody(reference);
      void committer
        .submit(
          {
            body: Buffer.from(JSON.stringify(body)),
            headers: { 'hmac-signature': hmacHeader(body) },
            source: 'callback',
          },
          Date.now(),
        )
        .then((r) => answered.set(reference, r));
    };

    // More groups than the store keeps commits in flight, each one waiting for its journal.
    const refs = ['MD-PIPE-1', 'MD-PIPE-2', 'MD-PIPE-3', 'MD-PIPE-4'];
    for (const [i, ref] of refs.entries()) {
      submit(ref);
      await until(`${ref} reaches the journal`, () => kept.length === i + 1);
    }
    for (const ref of refs) expect(await stored(ref)).toBe(1);
    // Committed, but not journalled yet: not answered.
    expect(answered.size).toBe(0);

    // The journal catches up, oldest first: each group is answered once its own entries are kept.
    for (const [i, ref] of refs.entries()) {
      expect(kept[i]!.entries.map((e) => e.event.merchantReference)).toEqual([ref]);
      kept[i]!.done();
      await until(`${ref} answered`, () => answered.has(ref));
      expect(answered.get(ref)).toMatchObject({ outcome: { result: 'imported', reference: ref } });
      expect(refs.slice(i + 1).some((r) => answered.has(r))).toBe(false);
    }
    await committer.drain();
    expect(stats.commits).toBe(4);
  });

  it('shares the deliveries waiting between its two commit slots, not all in one group', async () => {
    const store = teamCallbackStore(team.signIn(receiver));
    const stats: CommitStats = { deliveries: 0, commits: 0, largestGroup: 0, fallbacks: 0 };
    const committer = groupCommitter({ getKeys: () => ({ signingKey: SIGNING_KEY }) }, store, stats);
    // Another writer holds the events' write turn: the groups sent wait for it at PostgreSQL.
    const desk = await team.owner.connect();
    await desk.query('BEGIN');
    await desk.query('LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE');
    const waitingForTurn = async () =>
      Number(
        (
          await team.owner.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`,
            [receiver],
          )
        ).rows[0].n,
      );
    const answers: Promise<Delivered>[] = [];
    const submit = (reference: string) => {
      const body = callbackBody(reference);
      answers.push(
        committer.submit(
          {
            body: Buffer.from(JSON.stringify(body)),
            headers: { 'hmac-signature': hmacHeader(body) },
            source: 'callback',
          },
          Date.now(),
        ),
      );
    };
    try {
      submit('MD-SHARE-0');
      await until('the first group waits for the turn', async () => (await waitingForTurn()) === 1);
      // 109 more at once (a sender's connections answered together): with one group in flight, 110 in
      // the receiver, the second slot takes its share (55) and 54 wait for the next.
      for (let i = 1; i <= 109; i++) submit(`MD-SHARE-${i}`);
      await until('the second group waits for the turn', async () => (await waitingForTurn()) === 2);
      expect(committer.waiting()).toBe(54);
    } finally {
      await desk.query('COMMIT');
      desk.release();
    }
    const outcomes = await Promise.all(answers);
    expect(outcomes.map((o) => ('outcome' in o ? o.outcome.result : 'error'))).toEqual(
      Array.from({ length: 110 }, () => 'imported'),
    );
    expect(stats.commits).toBe(3);
    expect(stats.largestGroup).toBe(55);
  });
});
