// Which pushed changes could change the Collections list (hooks.ts `shows`): a row it has loaded, a
// collection newer than any it has seen (it may join the list), one reaching the status the list is
// filtered by, or any while it is filtered by flags or sorted by status with rows not loaded (pushes
// carry neither the flags nor the order). Amount, currency, customer, reference and creation time never
// change, so no other collection can join or leave what is loaded.
import type { Touched } from '../../reread.js';

export interface ListView {
  /** The ids and references of the loaded rows. */
  ids: ReadonlySet<number>;
  refs: ReadonlySet<string>;
  /** The status the list is filtered by, or ''. */
  status: string;
  flagged: boolean;
  sortedByStatus: boolean;
  /** Fewer rows loaded than match. */
  partial: boolean;
}

/** Before the first answer: nothing loaded, so only new collections concern it (the first read is coming). */
export const EMPTY_VIEW: ListView = {
  ids: new Set(),
  refs: new Set(),
  status: '',
  flagged: false,
  sortedByStatus: false,
  partial: false,
};

/** `newestSeen`: the highest collection id the list has seen (its rows, earlier pushes); raised here. */
export function listShows(view: ListView, newestSeen: { current: number }): (t: Touched) => boolean {
  return (t) => {
    if (t.id !== undefined && t.id > newestSeen.current) {
      newestSeen.current = t.id;
      return true;
    }
    if (t.id !== undefined ? view.ids.has(t.id) : view.refs.has(t.reference)) return true;
    if (view.status && (t.status === undefined || t.status === view.status)) return true;
    if (view.flagged) return true;
    return view.sortedByStatus && view.partial;
  };
}
