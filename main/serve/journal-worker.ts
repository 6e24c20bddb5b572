// The journal's writer thread (journal.ts): its own connection to serve-journal.sqlite, where it keeps
// each group of acknowledged callbacks in one transaction and says when they are written.
import { parentPort, workerData } from 'node:worker_threads';
import { keepAcknowledged, openServeJournal } from '../store/sqlite/serve-journal.js';
import { journalRow, type JournalWrite, type JournalWritten } from './journal.js';

const db = openServeJournal((workerData as { file: string }).file);

parentPort!.on('message', (m: JournalWrite) => {
  let answer: JournalWritten;
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
