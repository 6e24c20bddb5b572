// Under which key a verified callback is stored on this desk, or which stored event it repeats (docs/team.md,
// "The service said it again"). A callback carries nothing that orders it, and its key is its body's digest,
// so a body the desk already holds is either a retry or the service changing a final status back to one it
// held before (COMPLETED, FAILED, COMPLETED again: the second COMPLETED byte for byte the first):
// - a repeat when the reference's latest callback status (its newest callback or import event with a
//   status) is the delivery's own: nothing is stored;
// - said again otherwise: stored under `<key>:<n>`, n the first of 2, 3, ... not stored, and flagged
//   "Final status changed" for a person (nothing tells a change back from a late retry of the old one).
// The team's rule is the same, judged by PostgreSQL under the events' write turn (team migration 18,
// team.callback_keys); a team desk stores what the team answered and never judges a callback itself.
import type { ReadDb } from '../store/sqlite/connection.js';
import { eventByKey, latestCallbackStatus } from '../store/sqlite/ledger/collection-events.js';
import type { VerifiedCallback } from './callback-event.js';

/** Store the callback under `key`, or it repeats the stored event `repeats` (its id). */
export type CallbackKeying = { key: string } | { repeats: number };

/** The key of the n-th time a body is said (n >= 2): the first time's key, then the number. */
export const saidAgainKey = (key: string, n: number): string => `${key}:${n}`;

/** The stored event of this body said last: its latest key's, or (keys stored before) `callback:<digest>`. */
function lastStored(db: ReadDb, cb: VerifiedCallback): { id: number; n: number } | undefined {
  const first = eventByKey(db, cb.dedupeKey) ?? eventByKey(db, 'callback:' + cb.digest);
  if (!first) return undefined;
  let last = { id: first.id, n: 1 };
  for (let n = 2; ; n++) {
    const e = eventByKey(db, saidAgainKey(cb.dedupeKey, n));
    if (!e) return last;
    last = { id: e.id, n };
  }
}

/** Judges a verified callback against what this desk holds (inside the append's transaction). */
export function callbackKeying(db: ReadDb, cb: VerifiedCallback): CallbackKeying {
  const last = lastStored(db, cb);
  if (!last) return { key: cb.dedupeKey };
  if (latestCallbackStatus(db, cb.reference) === cb.status) return { repeats: last.id };
  return { key: saidAgainKey(cb.dedupeKey, last.n + 1) };
}
