// The journal's thread (journal.ts): its own connection to serve-journal.sqlite, where it folds the WAL
// into the file (the event loop's connection never does: an fsync each), and forgets what is older than
// the journal's days in short transactions, with a pause between them in which the event loop keeps
// its groups.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive, openServeJournal, pruneAcknowledged } from '../store/sqlite/serve-journal.js';
import type { JournalAnswer, JournalRequest } from './journal.js';
import { messageOf } from '../errors.shared.js';

const db = openServeJournal((workerData as { file: string }).file);

/** Rows a prune deletes in one transaction: a few milliseconds, then the groups waiting are kept. */
const PRUNE_CHUNK = 5_000;

function prune(id: number, before: number, pruned: number): void {
  let gone: number;
  try {
    gone = pruneAcknowledged(db, before, PRUNE_CHUNK);
  } catch (e) {
    parentPort!.postMessage({ id, error: messageOf(e) } satisfies JournalAnswer);
    return;
  }
  if (gone < PRUNE_CHUNK) parentPort!.postMessage({ id, pruned: pruned + gone } satisfies JournalAnswer);
  // A pause, so the event loop's connection, waiting for the write lock, takes it between two.
  else setTimeout(() => prune(id, before, pruned + gone), PRUNE_PAUSE_MS);
}

/** The pause between two prune transactions. */
const PRUNE_PAUSE_MS = 5;

parentPort!.on('message', (m: JournalRequest) => {
  if (m.type === 'prune') return prune(m.id, m.before, 0);
  let answer: JournalAnswer;
  try {
    checkpointPassive(db);
    answer = { id: m.id };
  } catch (e) {
    answer = { id: m.id, error: messageOf(e) };
  }
  parentPort!.postMessage(answer);
});
