// What "every desk shows the same" means, row for row: a desk's collections, events, reconciliation rows
// (its exceptions among them) and orphan callbacks, with every local id replaced by what identifies the row
// across desks (a collection by its merchant_reference, an event by its team key). Two desks, or a desk and
// a fresh replay of team.events, converged when these are equal.
import type { ReadDb } from '../../../main/store/sqlite/connection.js';

type Row = Record<string, unknown>;

export interface DeskView {
  collections: Row[];
  events: Row[];
  reconciliation: Row[];
  orphans: Row[];
}

export interface ViewOptions {
  /** Event keys this desk holds that the team refused (kept on the desk only, flagged): left out of its view. */
  leaveOut?: ReadonlySet<string>;
}

/** Team keys of this desk's events the team database refused (its outbox says so). */
export function refusedKeys(db: ReadDb): Set<string> {
  return new Set(
    (
      db.prepare("SELECT event_key FROM team_outbox WHERE state = 'refused'").all() as {
        event_key: string;
      }[]
    ).map((r) => r.event_key),
  );
}

export function deskView(db: ReadDb, o: ViewOptions = {}): DeskView {
  const leaveOut = o.leaveOut ?? new Set<string>();
  const keyOf = new Map<number, string>();
  for (const r of db.prepare('SELECT id, dedupe_key FROM collection_events').all() as {
    id: number;
    dedupe_key: string | null;
  }[])
    keyOf.set(r.id, r.dedupe_key ?? `local:${r.id}`);
  const key = (id: unknown) => (typeof id === 'number' ? (keyOf.get(id) ?? `missing:${id}`) : id);
  const refOf = new Map<number, string>();
  for (const r of db.prepare('SELECT id, merchant_reference FROM collections').all() as {
    id: number;
    merchant_reference: string;
  }[])
    refOf.set(r.id, r.merchant_reference);

  const collections = (db.prepare('SELECT * FROM collections ORDER BY merchant_reference').all() as Row[]).map(
    ({ id: _id, last_event_id, ...rest }) => ({ ...rest, last_event: key(last_event_id) }),
  );
  const events = (db.prepare('SELECT * FROM collection_events').all() as Row[])
    .map(({ id, collection_id, ...rest }) => ({
      key: key(id),
      collection: typeof collection_id === 'number' ? refOf.get(collection_id) : null,
      ...rest,
    }))
    .filter((e) => !leaveOut.has(e.key as string))
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));
  const reconciliation = (
    db
      .prepare(
        `SELECT c.merchant_reference, r.* FROM reconciliation r JOIN collections c ON c.id = r.collection_id
         ORDER BY c.merchant_reference`,
      )
      .all() as Row[]
  ).map(({ collection_id: _c, computed_at: _t, last_event_id, resolved_by_event_id, ...rest }) => ({
    ...rest,
    last_event: key(last_event_id),
    resolved_by: key(resolved_by_event_id),
  }));
  const orphans = (db.prepare('SELECT * FROM reconciliation_orphans').all() as Row[])
    .map(({ event_id, resolved_by_event_id, ...rest }) => ({
      event: key(event_id),
      ...rest,
      resolved_by: key(resolved_by_event_id),
    }))
    .filter((o) => !leaveOut.has(o.event as string))
    .sort((a, b) => String(a.event).localeCompare(String(b.event)));
  return { collections, events, reconciliation, orphans };
}

/** The first difference between two views, in words (null when equal): what a failing run prints. */
export function firstDifference(a: DeskView, b: DeskView, names: [string, string]): string | null {
  for (const table of ['collections', 'events', 'reconciliation', 'orphans'] as const) {
    const x = a[table];
    const y = b[table];
    const n = Math.max(x.length, y.length);
    for (let i = 0; i < n; i++) {
      const l = JSON.stringify(x[i] ?? null);
      const r = JSON.stringify(y[i] ?? null);
      if (l === r) continue;
      // The events of the reference that differs, from both sides: what a person debugging it reads next.
      const ref = (x[i] ?? y[i])?.merchant_reference ?? (x[i] ?? y[i])?.collection;
      const evs = (v: DeskView) =>
        v.events
          .filter((e) => e.merchant_reference === ref)
          .map((e) => `    ${JSON.stringify({ ...e, payload: e.payload ? '…' : null })}`)
          .join('\n');
      return (
        `${table} row ${i}:\n  ${names[0]}: ${l}\n  ${names[1]}: ${r}\n` +
        `  events of ${String(ref)} on ${names[0]}:\n${evs(a)}\n  on ${names[1]}:\n${evs(b)}`
      );
    }
  }
  return null;
}
