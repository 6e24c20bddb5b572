// How the workers of one collections export share its rows and its file (export.ts starts them,
// export-worker.ts runs them): the rows are cut into parts of about PART_ROWS rows by created_at, in
// order, each worker claims the next part when it is free, formats it in memory, and writes it at its
// place in the file once every part before it is written. So the file is written once, in order, by
// whichever worker is ready, while every worker keeps formatting: no segment files copied into one at
// the end (that copy, 0.6 s of a year's export on the main thread, was serial), and at most HELD_PARTS
// per worker held in memory (about 0.7 MB each).
//
// The state lives in a SharedArrayBuffer: a lock for claiming (the next part's start moves on under
// it), the index of the next part to claim, the index of the next part to write, and the file offset
// where it goes. A claim and a write each happen under Atomics, so the plain values they guard (the
// start, the offset) are seen by the next worker that takes the lock or the turn.
import fs from 'node:fs';

/** Rows per part: large enough that a claim's seek is nothing, small enough to hold a few in memory. */
export const PART_ROWS = 2048;

/**
 * Parts a worker holds formatted before it waits for its first one's turn: a worker whose neighbour is
 * slow (descheduled on a busy machine) keeps formatting meanwhile.
 */
export const HELD_PARTS = 2;

const LOCK = 0;
const NEXT_PART = 1;
const NEXT_WRITE = 2;
const CLAIMED_ALL = 3;
const STOP = 4;
const INTS = 8;
const START = 0; // f64: where the next part starts (created_at), NaN for "from the first row"
const OFFSET = 1; // f64: where the next part's bytes go in the file

export interface PartsState {
  ctrl: Int32Array;
  f64: Float64Array;
}

/** A new state: parts from `from` (none: the first row), the first written at byte `offset`. */
export function newPartsState(from: number | undefined, offset: number): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(INTS * 4 + 2 * 8);
  const f64 = new Float64Array(sab, INTS * 4, 2);
  f64[START] = from ?? NaN;
  f64[OFFSET] = offset;
  return sab;
}

export function partsState(sab: SharedArrayBuffer): PartsState {
  return { ctrl: new Int32Array(sab, 0, INTS), f64: new Float64Array(sab, INTS * 4, 2) };
}

/** Tells every worker to stop waiting (one of them failed). */
export function stopParts(s: PartsState): void {
  Atomics.store(s.ctrl, STOP, 1);
  Atomics.notify(s.ctrl, NEXT_WRITE);
  Atomics.notify(s.ctrl, LOCK);
}

export class PartsStopped extends Error {
  override name = 'PartsStopped';
}

function waitWhile(s: PartsState, at: number, value: number): void {
  if (Atomics.load(s.ctrl, STOP)) throw new PartsStopped('another export worker failed');
  Atomics.wait(s.ctrl, at, value, 100);
}

export interface Part {
  index: number;
  /** created_at range: from inclusive (none: from the first row), to exclusive (none: to the last). */
  from: number | undefined;
  to: number | undefined;
}

/**
 * Claims the next part, or null when every part is claimed. `end(from)` says where a part starting at
 * `from` ends (the created_at after PART_ROWS rows, reports' partEnd); anything but a finite number
 * means "the rest": the part then runs to `to`, and it is the last.
 */
export function claimPart(
  s: PartsState,
  to: number | undefined,
  end: (from: number | undefined) => unknown,
): Part | null {
  while (Atomics.compareExchange(s.ctrl, LOCK, 0, 1) !== 0) waitWhile(s, LOCK, 1);
  try {
    if (Atomics.load(s.ctrl, CLAIMED_ALL)) return null;
    const start = s.f64[START]!;
    const from = Number.isNaN(start) ? undefined : start;
    const at = end(from);
    const last = typeof at !== 'number' || !Number.isFinite(at);
    if (last) Atomics.store(s.ctrl, CLAIMED_ALL, 1);
    else s.f64[START] = at;
    return { index: Atomics.add(s.ctrl, NEXT_PART, 1), from, to: last ? to : at };
  } finally {
    Atomics.store(s.ctrl, LOCK, 0);
    Atomics.notify(s.ctrl, LOCK, 1);
  }
}

/** Whether part `index` is the next to be written. */
export function isTurn(s: PartsState, index: number): boolean {
  return Atomics.load(s.ctrl, NEXT_WRITE) === index;
}

/** Waits until part `index` is the next to be written, writes `bytes` at its place, and passes the turn on. */
export function writeInTurn(s: PartsState, fd: number, index: number, bytes: Buffer): void {
  for (let turn = Atomics.load(s.ctrl, NEXT_WRITE); turn !== index; turn = Atomics.load(s.ctrl, NEXT_WRITE))
    waitWhile(s, NEXT_WRITE, turn);
  let at = s.f64[OFFSET]!;
  for (let done = 0; done < bytes.length;) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, at);
    done += n;
    at += n;
  }
  s.f64[OFFSET] = at;
  Atomics.store(s.ctrl, NEXT_WRITE, index + 1);
  Atomics.notify(s.ctrl, NEXT_WRITE);
}
