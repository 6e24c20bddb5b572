// The renderer push paces what a window is told (main/ipc/push.ts), for both shells alike: a burst of
// changes reaches the window as at most 4 pushes a second, merged, the first at once and the last change
// never lost; the status is paced too (the newest one kept); notices, the lock and progress still go at once. Time is a fake clock (test/poller/fake-time.ts).
import { describe, expect, it } from 'vitest';
import { createEventBus, type ChangedCollection } from '../../main/app/event-bus.js';
import type { AppStatus } from '../../main/app/status.js';
import { PUSH_EVERY_MS, pushToRenderer, STATUS_EVERY_MS, STATUS_LAST_WAITS_MS } from '../../main/ipc/push.js';
import type { DeskEvents } from '../../main/ipc/contract/index.js';
import { FakeTime } from '../poller/fake-time.js';

type Updated = DeskEvents['collections.updated'];

function window() {
  const time = new FakeTime();
  const bus = createEventBus();
  const seen: { at: number; event: string; payload: unknown }[] = [];
  const off = pushToRenderer(bus, (event, payload) => seen.push({ at: time.now, event, payload }), {
    clock: time.clock,
    sleep: time.sleep,
  });
  const updates = () => seen.filter((s) => s.event === 'collections.updated').map((s) => s.payload as Updated);
  return { time, bus, seen, off, updates };
}

/** Lets the sleeps that fell due run their continuations. */
const settle = () => new Promise((r) => setTimeout(r, 0));

const col = (id: number, status = 'COMPLETED'): ChangedCollection => ({ id, reference: `MD-${id}`, status });

describe('the renderer push paces changes per window', () => {
  it('a burst of 1,000 changes over 2 s reaches the window as at most 4 pushes a second, the last state of every collection among them', async () => {
    const w = window();
    const start = w.time.now;
    for (let i = 0; i < 1000; i++) {
      // 50 collections, each changing status again and again; the last status of each is COMPLETED.
      const id = i % 50;
      w.bus.emit('collection.changed', col(id, i >= 950 ? 'COMPLETED' : 'PENDING'));
      w.time.advance(2);
      await settle();
    }
    w.time.advance(PUSH_EVERY_MS);
    await settle();

    const got = w.seen.filter((s) => s.event === 'collections.updated');
    expect(got[0]!.at).toBe(start); // the first at once
    // 2 s of changes and the trailing push: 4 a second, never two closer than PUSH_EVERY_MS.
    expect(got.length).toBeLessThanOrEqual(2 * 4 + 2);
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(PUSH_EVERY_MS);
    // Nothing lost: the newest status of each collection is what the window was last told about it.
    const last = new Map<number, string>();
    for (const u of w.updates()) for (const c of u.changed) last.set(c.id, c.status);
    expect(last.size).toBe(50);
    expect([...last.values()].every((s) => s === 'COMPLETED')).toBe(true);
    w.off();
  });

  it('a single change after a quiet spell is sent at once; one right behind it waits and is never dropped', async () => {
    const w = window();
    w.bus.emit('collection.changed', col(1, 'PENDING'));
    expect(w.updates()).toEqual([{ changed: [col(1, 'PENDING')], many: false }]);
    w.time.advance(10);
    w.bus.emit('collection.changed', col(1, 'COMPLETED'));
    expect(w.updates()).toHaveLength(1); // waits
    w.time.advance(PUSH_EVERY_MS);
    await settle();
    expect(w.updates()).toEqual([
      { changed: [col(1, 'PENDING')], many: false },
      { changed: [col(1, 'COMPLETED')], many: false },
    ]);
    // Quiet again: the next one goes at once.
    w.time.advance(PUSH_EVERY_MS * 4);
    w.bus.emit('collection.changed', col(2));
    expect(w.updates()).toHaveLength(3);
    w.off();
  });

  it('merged past 200 collections, the push says "many" and still lists the newest 200', async () => {
    const w = window();
    w.bus.emit('collection.changed', col(0));
    for (let i = 1; i <= 300; i++) w.bus.emit('collection.changed', col(i));
    w.time.advance(PUSH_EVERY_MS);
    await settle();
    const [, merged] = w.updates();
    expect(merged!.many).toBe(true);
    expect(merged!.changed.map((c) => c.id)).toEqual(Array.from({ length: 200 }, (_, i) => 101 + i));
    w.off();
  });

  it('deliveries merge to one push naming their reference while it is the same one, else none (read again)', async () => {
    const w = window();
    w.bus.emit('callbacks.ingested', { result: 'stored', reference: 'A' });
    w.bus.emit('callbacks.ingested', { result: 'stored', reference: 'A' });
    w.time.advance(PUSH_EVERY_MS);
    await settle();
    w.bus.emit('callbacks.ingested', { result: 'stored', reference: 'A' });
    w.bus.emit('callbacks.ingested', { result: 'stored', reference: 'B' });
    w.time.advance(PUSH_EVERY_MS);
    await settle();
    expect(w.seen.map((s) => s.payload)).toEqual([
      { result: 'stored', reference: 'A' },
      { result: 'stored', reference: 'A' },
      { result: 'stored', reference: null },
    ]);
    w.off();
  });

  it('notices, the lock and progress are not held back by the pacing', () => {
    const w = window();
    w.bus.emit('collection.changed', col(1));
    w.bus.emit('collection.changed', col(2));
    w.bus.emit('notice', { level: 'info', message: 'one' });
    w.bus.emit('notice', { level: 'info', message: 'two' });
    w.bus.emit('lock.changed', { locked: true });
    expect(w.seen.map((s) => s.event)).toEqual(['collections.updated', 'app.notice', 'app.notice', 'lock.changed']);
    w.off();
  });

  it('a desk pulling 300 times a second tells its status to the window at most once a second, the newest last', async () => {
    const w = window();
    const start = w.time.now;
    // Each pull changes the status (the last pull's time, how far behind); only the newest matters.
    for (let i = 0; i < 300; i++) {
      w.bus.emit('status.changed', { behind: 300 - i - 1 } as unknown as AppStatus);
      w.time.advance(1000 / 300);
      await settle();
    }
    w.time.advance(STATUS_EVERY_MS);
    await settle();
    const got = w.seen.filter((s) => s.event === 'app.status');
    expect(got[0]!.at).toBe(start);
    // Once a second (each change costs the window a render of the status bar), the newest last.
    expect(got.length).toBeLessThanOrEqual(1 + 2);
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(STATUS_EVERY_MS);
    expect(got.at(-1)!.payload).toEqual({ behind: 0 });
    w.off();
  });

  it("a desk following a busy team sends a pull's status with that pull's notice, in the same turn, not alone a moment before", async () => {
    const w = window();
    const status = (n: number) => ({ lastSeq: n }) as unknown as AppStatus;
    const turn = () => w.seen.splice(0).map((s) => s.event);
    // A pull every 250 ms: its notice, then its status, in one turn of main's loop.
    const pull = async (n: number) => {
      w.bus.emit('collections.changed', { changed: [col(n)], many: false });
      w.bus.emit('status.changed', status(n));
      const sent = turn();
      w.time.advance(250);
      await settle();
      return [sent, turn()];
    };
    expect(await pull(0)).toEqual([['collections.updated', 'app.status'], []]);
    for (const n of [1, 2, 3]) expect(await pull(n)).toEqual([['collections.updated'], []]); // the status waits
    // A second after the last status sent: the pull's status goes with its notice, not by a timer before it.
    expect(await pull(4)).toEqual([['collections.updated', 'app.status'], []]);
    // Alone, the last change still arrives: a beat after the pace allowed it.
    w.bus.emit('status.changed', status(5));
    w.time.advance(STATUS_EVERY_MS - 250);
    await settle();
    expect(turn()).toEqual([]);
    w.time.advance(STATUS_LAST_WAITS_MS);
    await settle();
    expect(w.seen.map((s) => s.payload)).toEqual([status(5)]);
    w.off();
  });

  it("what a pulled batch changed (collections, orphans) is sent at once: the sync's beat paced it, the push does not again", () => {
    const w = window();
    const orphans = () => w.seen.filter((s) => s.event === 'orphans.updated').map((s) => s.payload);
    w.bus.emit('collection.changed', col(1)); // this desk's own charge: paced here
    w.bus.emit('collection.changed', col(2));
    w.bus.emit('collections.changed', { changed: [col(3, 'COMPLETED')], many: false });
    w.bus.emit('collections.changed', { changed: [], many: true });
    w.bus.emit('orphans.changed', { stored: 1 });
    w.bus.emit('orphans.changed', { stored: 2 });
    expect(w.updates()).toEqual([
      { changed: [col(1)], many: false },
      { changed: [col(3, 'COMPLETED')], many: false },
      { changed: [], many: true },
    ]);
    expect(orphans()).toEqual([{ stored: 1 }, { stored: 2 }]);
    w.off();
  });

  it('a closed window is told nothing more: what waited is dropped with its timer', async () => {
    const w = window();
    w.bus.emit('collection.changed', col(1));
    w.bus.emit('collection.changed', col(2));
    expect(w.time.pending()).toHaveLength(1);
    w.off();
    await settle();
    expect(w.time.pending()).toHaveLength(0);
    w.time.advance(PUSH_EVERY_MS);
    await settle();
    expect(w.updates()).toHaveLength(1);
  });
});
