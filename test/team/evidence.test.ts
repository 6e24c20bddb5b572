// What a team desk believes, against a real PostgreSQL written to through pg directly by teammates'
// logins: who did something is what PostgreSQL recorded (actor, created_by), never a name in a payload;
// on every desk, and on a new desk's start (bulk replay and snapshot) alike.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { openDatabase, type Db } from '../../main/store/db.js';
import { appendEvents } from '../../main/team/events.js';
import { recordIntent } from '../../main/team/record.js';
import { publishSnapshot } from '../../main/team/snapshot/publish.js';
import { startTeamSync, type TeamSyncOptions } from '../../main/team/sync.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';
import { newIntent, openDesk, quietLogger, type Desk } from './sync-desk.js';

let team: TeamFixture;
let sam: string;
let samPool: pg.Pool;
let publisher: pg.Pool;
const dirs: string[] = [];
const desks: Desk[] = [];

beforeAll(async () => {
  team = await teamFixture();
  sam = await team.addOperator('support', 'sam');
  samPool = team.signIn(sam);
  publisher = team.signIn(await team.addOperator('back_office', 'nightly'));
});
afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await team?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A new desk caught up once (from the snapshot unless `snapshots: false`); says how it started. */
async function newDesk(over: Partial<TeamSyncOptions> = {}): Promise<{ db: Db; from: string | null }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-evidence-'));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'desk.sqlite'));
  let from: string | null = null;
  const sync = startTeamSync({
    pool: team.owner,
    db,
    clock: systemClock,
    logger: quietLogger,
    pollEveryMs: 600_000,
    onCopied: (_n, f) => {
      from = f;
    },
    ...over,
  });
  await sync.pullNow();
  await sync.close();
  return { db, from };
}

/** Who a desk says created the collection and wrote each of its events. */
function who(db: Db, reference: string) {
  return {
    operator: db.prepare('SELECT operator FROM collections WHERE merchant_reference = ?').pluck().get(reference),
    actors: db
      .prepare('SELECT source, actor FROM collection_events WHERE merchant_reference = ? ORDER BY id')
      .all(reference),
  };
}

describe('who did something, on a team desk', () => {
  it("is the login PostgreSQL recorded, whatever the intent's payload says, on every desk and every new desk's start", async () => {
    const running: Desk = openDesk(team.owner);
    desks.push(running);
    const intent = newIntent({ operator: 'alice' });
    const ref = intent.merchantReference;
    await recordIntent(samPool, intent);
    await appendEvents(samPool, [event({ merchantReference: ref, eventKey: `init:${ref}` })]);
    const want = {
      operator: sam,
      actors: [
        { source: 'intent', actor: sam },
        { source: 'initiate', actor: sam },
      ],
    };

    await running.sync.pullNow();
    expect(who(running.db, ref)).toEqual(want);

    const replay = await newDesk({ snapshots: false });
    expect(replay.from).toBe('replay');
    expect(who(replay.db, ref)).toEqual(want);

    await publishSnapshot({ pool: publisher, now: () => Date.now(), scratchDir: dirs[0]! });
    const fromSnapshot = await newDesk();
    expect(fromSnapshot.from).toBe('snapshot');
    expect(who(fromSnapshot.db, ref)).toEqual(want);
    replay.db.close();
    fromSnapshot.db.close();
  });
});
