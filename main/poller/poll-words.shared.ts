// A poll's failure in words, for the status bar (main/app/status.ts) and the screens that show cached
// data (Balances, Payment options). A failure this session saw carries the service error's own words; one
// read back from the poll log has its kind and English message only: its words are then the kind's
// sentence, whose English is that message as it was (so English reads as before) and whose French says
// what the kind means, the detail beside it.
import { words, type MessageId, type Words } from '../words/words.shared.js';
import { SERVICE_ERROR_KINDS } from '../service/error-kinds.shared.js';

// Every service error kind a poll can meet (a poll never charges, so never 'declined'), and the poll's own.
const KINDS = [...SERVICE_ERROR_KINDS.filter((k) => k !== 'declined'), 'not_configured'] as const;

export function pollErrorWords(e: { kind: string; message: string; words?: Words | undefined }): Words {
  if (e.words) return e.words;
  const id: MessageId = (KINDS as readonly string[]).includes(e.kind)
    ? `status.poll.${e.kind as Exclude<(typeof KINDS)[number], 'declined'>}`
    : 'status.poll.other';
  return words(id, { reason: e.message });
}
