// The journal's writer thread (journal.ts): its own connection to serve-journal.sqlite, where it keeps
// each group of acknowledged callbacks in one transaction and says when they are written, and forgets
// what is older than the journal's days in short transactions, with groups kept between them.
import { parentPort, workerData } from 'node:worker_threads';
import { keepAcknowledged, openServeJournal, pruneAcknowledged } from '../store/sqlite/serve-journal.js';
import { journalRow, type JournalAnswer, type JournalRequest } from './journal.js';

const db = openServeJournal((workerData as { file: string }).file);

/** Rows a prune deletes in one transaction: a few milliseconds, then the groups waiting are kept. */
const PRUNE_CHUNK = 5_000;

function prune(id: number, before: number, pruned: number): void {
  let gone: number;
  try {
    gone = pruneAcknowledged(db, before, PRUNE_CHUNK);
  } catch (e) {
    parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) } satisfies JournalAnswer);
    return;
  }
  if (gone < PRUNE_CHUNK) parentPort!.postMessage({ id, pruned: pruned + gone } satisfies JournalAnswer);
  else setImmediate(() => prune(id, before, pruned + gone));
}

parentPort!.on('message', (m: JournalRequest) => {
  if (m.type === 'prune') return prune(m.id, m.before, 0);
  let answer: JournalAnswer;
  try {
    keepAcknowledged(
      db,
      m.entries.map((e) => journalRow(e, m.now)),
    );
    answer = { id: m.id };
  } catch (e) {
    answer = { id: m.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(answer);
});
