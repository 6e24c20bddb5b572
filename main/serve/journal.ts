// serve's journal of the callbacks it acknowledged (issue 29). The service sends a callback until it gets
// a 2xx and never again after: once serve answered 200, the team record is the only place the callback
// lives. If that record then goes back in time (an asynchronous failover, a restore from backup), a
// callback no desk had pulled yet would be gone for good. So serve keeps, in its own SQLite file
// (serve-journal.sqlite in its data folder; its own schema), each callback's team event as it wrote it
// (the body and the signature headers as received: it proves itself to any desk), for a number of days
// (default 14, --journal-days), pruned hourly; record-watch.ts puts back what the record lost.
//
// A row is written after the record's commit and before the delivery is answered: a callback answered
// 200 is in the journal. When the journal cannot be written, the delivery is answered 503 and the
// service sends it again (stored once by its key, as any repeated delivery).
//
// A group's rows are inserted on this thread, in one transaction, as soon as its commit returns: they
// are on the way of every delivery's answer, and handed to a thread of their own they waited for that
// thread, its answer and the event loop (2-3 ms a group at 8,000 callbacks/s on 2 cores, against
// about 0.6 ms to insert them here; issue 31). What would hold the event loop is on the journal's thread
// (journal-worker.ts, its own connection to the file): this connection never checkpoints (each fold of
// the WAL into the file is an fsync); the thread does, every CHECKPOINT_ROWS rows, while the groups kept
// meanwhile wait for it (as they waited for a checkpoint inside a commit before): a row written during
// it would keep the WAL from starting over, and the WAL would grow for good. It also prunes, in short
// transactions. This connection is what the record watch reads and writes its marks on too. With
// several serve instances, each has its own data folder, so its own journal of what it acknowledged.
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { launchWorker } from '../platform/launch-worker.js';
import type { Db } from '../store/sqlite/connection.js';
import {
  keepAcknowledged,
  neverCheckpoint,
  openServeJournal,
  type AcknowledgedRow,
} from '../store/sqlite/serve-journal.js';
import type { NewTeamEvent } from '../team/events.js';
import { messageOf } from '../errors.shared.js';

export const JOURNAL_FILE = 'serve-journal.sqlite';
export const DEFAULT_JOURNAL_DAYS = 14;

export interface JournalEntry {
  event: NewTeamEvent;
  /** The seq the record gave it, or null when it was there already. */
  seq: number | null;
}

export interface ServeJournal {
  /** This thread's connection: the record watch reads it, and writes its marks and report there. */
  db: Db;
  days: number;
  /** Keeps callbacks just stored; resolves once they are written (rejects when they could not be). */
  keep(entries: readonly JournalEntry[], now: number): Promise<void>;
  /** Forgets what is older than the journal's days (on the writer's thread); how many rows went. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}

/** A journal row for an event: its body and signature headers in their own columns, the rest as JSON. */
export function journalRow(e: JournalEntry, now: number): AcknowledgedRow {
  const { payload, evidence, ...rest } = e.event;
  return {
    event_key: e.event.eventKey,
    seq: e.seq,
    event: JSON.stringify(rest),
    payload: payload ?? null,
    evidence: evidence ?? null,
    acknowledged_at: now,
  };
}

/** The event a journal row holds, as serve wrote it (rows kept before version 2 have it all in `event`). */
export function journalEvent(row: Pick<AcknowledgedRow, 'event' | 'payload' | 'evidence'>): NewTeamEvent {
  const event = JSON.parse(row.event) as NewTeamEvent;
  if (row.payload !== null) event.payload = row.payload;
  if (row.evidence !== null) event.evidence = row.evidence;
  return event;
}

/** What the journal's thread is sent, and answers. */
export type JournalRequest = { type: 'checkpoint'; id: number } | { type: 'prune'; id: number; before: number };
export interface JournalAnswer {
  id: number;
  /** Rows a prune forgot. */
  pruned?: number;
  error?: string;
}

/** Rows kept between two checkpoints (about 4 MB of WAL, SQLite's own default interval). */
const CHECKPOINT_ROWS = 2_000;

export function openJournal(dataDir: string, days = DEFAULT_JOURNAL_DAYS): ServeJournal {
  const file = path.join(dataDir, JOURNAL_FILE);
  // Opened (and migrated) here first, so the thread opens a file at its newest schema.
  const db = openServeJournal(file);
  neverCheckpoint(db);
  let sinceCheckpoint = 0;
  /** The thread's checkpoint under way, if any. */
  let checkpointing: Promise<void> | null = null;
  let writer: Worker | null = null;
  const pending = new Map<number, { resolve(a: JournalAnswer): void; reject(e: Error): void }>();
  let nextId = 0;

  /** The journal's thread, started on first use and again after one that failed. */
  function thread(): Worker {
    if (writer) return writer;
    const w = launchWorker(import.meta.url, 'journal-worker', { file });
    const fail = (e: Error) => {
      if (writer === w) writer = null;
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    w.on('message', (m: JournalAnswer) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!p) return;
      if (m.error) p.reject(new Error(`the journal could not be written: ${m.error}`));
      else p.resolve(m);
      if (pending.size === 0) w.unref();
    });
    w.on('error', (e) => fail(new Error(`the journal's writer failed: ${e.message}`)));
    w.on('exit', (code) => fail(new Error(`the journal's writer stopped (${code})`)));
    w.unref();
    writer = w;
    return w;
  }

  /** Sends the writer a request; its answer. */
  function ask(request: JournalRequest): Promise<JournalAnswer> {
    const w = thread();
    return new Promise<JournalAnswer>((resolve, reject) => {
      pending.set(request.id, { resolve, reject });
      w.ref();
      w.postMessage(request);
    });
  }

  return {
    db,
    days,
    async keep(entries, now) {
      if (!entries.length) return;
      // Not while the thread checkpoints: a row written meanwhile would keep the WAL from starting over
      // (SQLite restarts it only when a write finds every frame folded), and it would grow for good.
      while (checkpointing) await checkpointing;
      try {
        keepAcknowledged(
          db,
          entries.map((e) => journalRow(e, now)),
        );
      } catch (e) {
        throw new Error(`the journal could not be written: ${messageOf(e)}`, {
          cause: e,
        });
      }
      sinceCheckpoint += entries.length;
      if (sinceCheckpoint >= CHECKPOINT_ROWS) {
        sinceCheckpoint = 0;
        // The groups kept from now wait for it (as they waited for the checkpoint inside a commit before);
        // one that fails leaves the WAL to the next.
        checkpointing = ask({ type: 'checkpoint', id: nextId++ })
          .then(() => undefined)
          .catch(() => undefined)
          .finally(() => (checkpointing = null));
      }
    },
    prune: async (now) => (await ask({ type: 'prune', id: nextId++, before: now - days * 86_400_000 })).pruned ?? 0,
    async close() {
      const w = writer;
      writer = null;
      if (w) await w.terminate();
      db.close();
    },
  };
}
