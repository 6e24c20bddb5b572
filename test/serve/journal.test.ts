// serve's journal of the callbacks it acknowledged (issue 29): its own SQLite file and schema, kept for
// its days and pruned, read newest first a page at a time (record-watch.ts looks for what the team record
// lost there), and its setting refused with a message naming it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, openJournal, type ServeJournal } from '../../main/serve/journal.js';
import { acknowledgedBefore, journalSize } from '../../main/store/sqlite/serve-journal.js';
import { positiveNumber, ServeConfigError } from '../../main/serve/config.js';
import type { NewTeamEvent } from '../../main/team/events.js';

const open: ServeJournal[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journal(days?: number): { j: ServeJournal; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-journal-'));
  dirs.push(dir);
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
  it('keeps each callback with its seq in a file of its own (not the desk schema), and a repeat keeps the seq it had', () => {
    const { j, dir } = journal();
    j.keep([{ event: ev('a'), seq: 7 }], 10 * DAY);
    j.keep([{ event: ev('a'), seq: null }], 10 * DAY + 5);
    expect(fs.existsSync(path.join(dir, JOURNAL_FILE))).toBe(true);
    const rows = acknowledgedBefore(j.db, Infinity, 10, null);
    expect(rows).toEqual([{ event_key: 'a', seq: 7, event: JSON.stringify(ev('a')), acknowledged_at: 10 * DAY + 5 }]);
    const tables = j.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['acknowledged', 'record_report']);
  });

  it('is pruned after its days (default 14)', () => {
    const { j } = journal();
    expect(j.days).toBe(14);
    j.keep([{ event: ev('old'), seq: 1 }], 0);
    j.keep([{ event: ev('new'), seq: 2 }], 10 * DAY);
    expect(j.prune(14 * DAY + 1)).toBe(1);
    expect(journalSize(j.db)).toBe(1);
    const short = journal(1).j;
    short.keep([{ event: ev('x'), seq: 1 }], 0);
    expect(short.prune(DAY + 1)).toBe(1);
  });

  it('is read newest first a page at a time, from a moment back, ties kept apart by key', () => {
    const { j } = journal();
    for (let i = 0; i < 5; i++) j.keep([{ event: ev(`k${i}`), seq: i }], 100 + Math.floor(i / 2));
    j.keep([{ event: ev('later'), seq: 9 }], 500);
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
