// serve's journal of the callbacks it acknowledged (issue 29): its own SQLite file and schema, kept for
// its days and pruned, read newest first a page at a time (record-watch.ts looks for what the team record
// lost there), and its setting refused with a message naming it. A group is kept on serve's own connection
// before keep() returns, and the WAL folded into the file by the journal's thread (issue 31).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, journalEvent, openJournal, type ServeJournal } from '../../main/serve/journal.js';
import { acknowledgedBefore, journalSize, keepAcknowledged } from '../../main/store/sqlite/serve-journal.js';
import { positiveNumber, ServeConfigError } from '../../main/serve/config.js';
import type { NewTeamEvent } from '../../main/team/events.js';
import { tempDir } from '../support/tmp.js';

const open: ServeJournal[] = [];
afterEach(async () => {
  for (const j of open.splice(0)) await j.close();
});

function journal(days?: number): { j: ServeJournal; dir: string } {
  const dir = tempDir('md-journal-');
  const j = openJournal(dir, days);
  open.push(j);
  return { j, dir };
}

const ev = (key: string): NewTeamEvent => ({
  eventKey: key,
  merchantReference: `REF-${key}`,
  source: 'callback',
  kind: 'outcome',
  status: 'COMPLETED',
  signature: 'verified',
  payload: '{"event":"transaction.completed"}',
  evidence: '{"hmac":"t=1,s=ab","rsa":null}',
  occurredAt: 1_000,
});

const DAY = 86_400_000;

describe("serve's journal", () => {
  it('keeps each callback with its seq in a file of its own (not the desk schema), and a repeat keeps the seq it had', async () => {
    const { j, dir } = journal();
    await j.keep([{ event: ev('a'), seq: 7 }], 10 * DAY);
    await j.keep([{ event: ev('a'), seq: null }], 10 * DAY + 5);
    expect(fs.existsSync(path.join(dir, JOURNAL_FILE))).toBe(true);
    const rows = acknowledgedBefore(j.db, Infinity, 10, null);
    expect(rows).toMatchObject([{ event_key: 'a', seq: 7, acknowledged_at: 10 * DAY + 5 }]);
    // The event as serve wrote it, body and signature headers as received.
    expect(journalEvent(rows[0]!)).toEqual(ev('a'));
    expect(rows[0]).toMatchObject({ payload: ev('a').payload, evidence: ev('a').evidence });
    const tables = j.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['acknowledged', 'record_report']);
  });

  it('reads a row kept before the body had a column of its own (the whole event in one JSON) as it was', () => {
    const { j } = journal();
    keepAcknowledged(j.db, [
      { event_key: 'v1', seq: 3, event: JSON.stringify(ev('v1')), payload: null, evidence: null, acknowledged_at: 1 },
    ]);
    expect(journalEvent(acknowledgedBefore(j.db, Infinity, 10, null)[0]!)).toEqual(ev('v1'));
  });

  it('keeps a group before keep() returns, with no wait for its thread, which folds the WAL into the file', async () => {
    const { j, dir } = journal();
    const kept = j.keep([{ event: ev('at-once'), seq: 1 }], 0);
    // Written already: a delivery's answer waits for no thread.
    expect(journalSize(j.db)).toBe(1);
    await kept;
    // Past 2,000 rows the journal's thread checkpoints: the rows move from the WAL into the file itself.
    const file = path.join(dir, JOURNAL_FILE);
    const before = fs.statSync(file).size;
    for (let g = 0; g < 25; g++)
      await j.keep(
        Array.from({ length: 100 }, (_, i) => ({ event: ev(`wal-${g}-${i}`), seq: 2 + g * 100 + i })),
        1,
      );
    expect(journalSize(j.db)).toBe(2_501);
    const deadline = Date.now() + 10_000;
    while (fs.statSync(file).size < before + 500_000 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 500_000);
  });

  it('keeps its WAL to about what 2,000 rows take while groups keep coming', async () => {
    const { j, dir } = journal();
    // Rows the size of a real callback's (its body and both signature headers), in groups of 60.
    const big = (key: string): NewTeamEvent => ({ ...ev(key), payload: 'p'.repeat(1_300), evidence: 'e'.repeat(800) });
    for (let g = 0; g < 200; g++) {
      await j.keep(
        Array.from({ length: 60 }, (_, i) => ({ event: big(`big-${g}-${i}`), seq: g * 60 + i })),
        1,
      );
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(journalSize(j.db)).toBe(12_000);
    // 12,000 such rows are about 30 MB of WAL if it never starts over.
    expect(fs.statSync(path.join(dir, `${JOURNAL_FILE}-wal`)).size).toBeLessThan(15_000_000);
  });

  it('is pruned after its days (default 14)', async () => {
    const { j } = journal();
    expect(j.days).toBe(14);
    await j.keep([{ event: ev('old'), seq: 1 }], 0);
    await j.keep([{ event: ev('new'), seq: 2 }], 10 * DAY);
    expect(await j.prune(14 * DAY + 1)).toBe(1);
    expect(journalSize(j.db)).toBe(1);
    const short = journal(1).j;
    await short.keep([{ event: ev('x'), seq: 1 }], 0);
    expect(await short.prune(DAY + 1)).toBe(1);
  });

  it('forgets a large backlog in short transactions on its own thread, all of it, and keeps callbacks meanwhile', async () => {
    const { j } = journal();
    const old = Array.from({ length: 12_345 }, (_, i) => ({ event: ev(`old-${i}`), seq: i }));
    for (let i = 0; i < old.length; i += 1000) await j.keep(old.slice(i, i + 1000), 0);
    const pruning = j.prune(14 * DAY + 1);
    await j.keep([{ event: ev('during'), seq: 99_999 }], 14 * DAY);
    expect(await pruning).toBe(old.length);
    expect(acknowledgedBefore(j.db, Infinity, 10, null).map((r) => r.event_key)).toEqual(['during']);
  });

  it('is read newest first a page at a time, from a moment back, ties kept apart by key', async () => {
    const { j } = journal();
    for (let i = 0; i < 5; i++) await j.keep([{ event: ev(`k${i}`), seq: i }], 100 + Math.floor(i / 2));
    await j.keep([{ event: ev('later'), seq: 9 }], 500);
    const first = acknowledgedBefore(j.db, 200, 2, null);
    expect(first.map((r) => r.event_key)).toEqual(['k4', 'k3']);
    const last = first[first.length - 1]!;
    const second = acknowledgedBefore(j.db, 200, 2, { at: last.acknowledged_at, key: last.event_key });
    expect(second.map((r) => r.event_key)).toEqual(['k2', 'k1']);
  });

  it('a setting that is not a positive number is refused naming it', () => {
    expect(() => positiveNumber('0', '--journal-days', 'days', 3650)).toThrow(ServeConfigError);
    expect(() => positiveNumber('two', '--journal-days (MERCHANT_DESK_JOURNAL_DAYS)', 'days', 3650)).toThrow(
      '--journal-days (MERCHANT_DESK_JOURNAL_DAYS) must be a number of days above 0 and at most 3650 (got two)',
    );
    expect(positiveNumber('0.5', '--restore-wait-seconds', 'seconds', 86_400)).toBe(0.5);
  });
});
