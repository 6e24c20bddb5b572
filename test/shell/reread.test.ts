// When a screen reads its data again after a push (renderer/src/reread.ts, used by every screen through
// renderer/src/hooks.ts), without a DOM: only for changes that concern what it shows, one read in flight
// and one after it, none while the person types or a dialog is open. And what concerns the Collections
// list (screens/Collections/list-shows.ts).
import { describe, expect, it } from 'vitest';
import { concerns, createRereadGate } from '../../renderer/src/reread.js';
import { EMPTY_VIEW, listShows, type ListView } from '../../renderer/src/screens/Collections/list-shows.js';

const col = (id: number, status = 'COMPLETED') => ({ id, reference: `MD-${id}`, status });

describe('concerns', () => {
  const shows = (t: { id?: number; reference: string }) => t.id === 7 || t.reference === 'MD-7';

  it('a screen without `shows` re-reads on every change; one with it only when the push names what it shows', () => {
    expect(concerns('collections.updated', { changed: [col(1)], many: false }, undefined)).toBe(true);
    expect(concerns('collections.updated', { changed: [col(1), col(2)], many: false }, shows)).toBe(false);
    expect(concerns('collections.updated', { changed: [col(1), col(7)], many: false }, shows)).toBe(true);
    expect(concerns('callbacks.ingested', { result: 'stored', reference: 'MD-1' }, shows)).toBe(false);
    expect(concerns('callbacks.ingested', { result: 'stored', reference: 'MD-7' }, shows)).toBe(true);
  });

  it('"many changed", or a delivery naming no reference (an import, a bulk copy), concerns every screen', () => {
    expect(concerns('collections.updated', { changed: [], many: true }, shows)).toBe(true);
    expect(concerns('callbacks.ingested', { result: 'import', reference: null }, shows)).toBe(true);
    expect(concerns('balances.updated', { outcome: 'ok', changed: 1 }, shows)).toBe(true);
  });
});

/** A gate whose reads the test finishes by hand, with timers it fires by hand. */
function gate(held = () => false) {
  const reads: (() => void)[] = [];
  const timers: (() => void)[] = [];
  const g = createRereadGate({
    run: () => new Promise<void>((r) => reads.push(r)),
    held,
    setTimer: (fn) => timers.push(fn),
    clearTimer: () => timers.splice(0),
  });
  return { g, reads, timers };
}
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the re-read gate', () => {
  it('one read in flight and one after it, however many changes arrive meanwhile', async () => {
    const { g, reads } = gate();
    for (let i = 0; i < 50; i++) g.request();
    await settle();
    expect(reads).toHaveLength(1);
    for (let i = 0; i < 50; i++) g.request();
    reads[0]!();
    await settle();
    expect(reads).toHaveLength(2); // the trailing one, for everything that came during the first
    reads[1]!();
    await settle();
    expect(reads).toHaveLength(2); // nothing more was asked
  });

  it('while the person types or a dialog is open it waits, then reads once when they stop', async () => {
    let busy = true;
    const { g, reads, timers } = gate(() => busy);
    g.request();
    g.request();
    await settle();
    expect(reads).toHaveLength(0);
    expect(timers).toHaveLength(1);
    timers.shift()!(); // still typing: looks again later
    await settle();
    expect(reads).toHaveLength(0);
    expect(timers).toHaveLength(1);
    busy = false;
    g.request();
    timers.shift()!();
    await settle();
    expect(reads).toHaveLength(1);
    reads[0]!();
    await settle();
    expect(reads).toHaveLength(1);
  });

  it('a gate disposed with its screen reads nothing more', async () => {
    const { g, reads, timers } = gate(() => true);
    g.request();
    g.dispose();
    expect(timers).toHaveLength(0);
    g.request();
    await settle();
    expect(reads).toHaveLength(0);
  });
});

describe('what concerns the Collections list', () => {
  const view = (over: Partial<ListView> = {}): ListView => ({
    ...EMPTY_VIEW,
    ids: new Set([5, 6, 7]),
    refs: new Set(['MD-5', 'MD-6', 'MD-7']),
    ...over,
  });

  it('a row it has loaded, by id or by a delivery to its reference, does; an older collection it does not show does not', () => {
    const shows = listShows(view(), { current: 10 });
    expect(shows(col(6))).toBe(true);
    expect(shows({ reference: 'MD-6' })).toBe(true);
    expect(shows(col(2))).toBe(false);
    expect(shows({ reference: 'MD-2' })).toBe(false);
  });

  it('a collection newer than any it has seen does, once (it may join the list)', () => {
    const newest = { current: 10 };
    const shows = listShows(view(), newest);
    expect(shows(col(11))).toBe(true);
    expect(newest.current).toBe(11);
    expect(shows(col(11))).toBe(false); // the re-read showed it, or it does not match the filters
  });

  it('filtered by status: a change to that status does; filtered by flags, or sorted by status with rows not loaded: any does', () => {
    expect(listShows(view({ status: 'FAILED' }), { current: 10 })(col(2, 'FAILED'))).toBe(true);
    expect(listShows(view({ status: 'FAILED' }), { current: 10 })(col(2, 'COMPLETED'))).toBe(false);
    expect(listShows(view({ flagged: true }), { current: 10 })(col(2))).toBe(true);
    expect(listShows(view({ sortedByStatus: true, partial: true }), { current: 10 })(col(2))).toBe(true);
    expect(listShows(view({ sortedByStatus: true, partial: false }), { current: 10 })(col(2))).toBe(false);
  });
});
