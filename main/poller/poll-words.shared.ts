// A poll's failure in words, for the status bar (main/app/status.ts) and the screens that show cached
// data (Balances, Payment options). A failure this session saw carries the service error's own words; one
// read back from the poll log has its kind and English message only: its words are then the kind's
// sentence, whose English is that message as it was (so English reads as before) and whose French says
// what the kind means, the detail beside it.
import { words, type MessageId, type Words } from '../words/words.shared.js';

const KINDS = [
  'authentication',
  'validation',
  'forbidden',
  'not_found',
  'rate_limited',
  'unavailable',
  'network',
  'unreadable',
  'unknown_outcome',
  'not_configured',
] as const;

export function pollErrorWords(e: { kind: string; message: string; words?: Words | undefined }): Words {
  if (e.words) return e.words;
  const id: MessageId = (KINDS as readonly string[]).includes(e.kind)
    ? `status.poll.${e.kind as (typeof KINDS)[number]}`
    : 'status.poll.other';
  return words(id, { reason: e.message });
}
