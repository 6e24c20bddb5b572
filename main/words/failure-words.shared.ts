// What a person is told when something fails in a way nobody wrote words for (issue 39, item 5): never the
// error's own text (a stack, "Maximum call stack size exceeded", a class name), but what failed, what it
// may have left changed and where the log with the detail is. Main says it for a call that failed
// (main/ipc/dispatch.ts), the window for a fault of its own code (renderer/src/desk.ts): both from the
// catalogue's texts (./failure.shared.ts), one "doing" per channel (main/ipc/dispatch.ts checks them against
// the contract's channels, so a new channel cannot be added without saying this).
import { isMessageId, nest, words, type WordValues, type Words } from './words.shared.js';

/** What `channel` was doing and what a failure part-way may have left changed, as values to nest. */
function failureParts(channel: string): WordValues {
  const doing = `failure.doing.${channel}`;
  const changes = `failure.changes.${channel}`;
  return {
    ...nest('doing', words(isMessageId(doing) ? doing : 'failure.doing.request'), ''),
    ...nest('changes', words(isMessageId(changes) ? changes : 'failure.nothingChanged'), ''),
  };
}

/**
 * An unexpected failure of `channel` in main: "<doing> failed unexpectedly; <changes>. The details are in
 * <log>." (`logFile`: the data folder's log; without it, "the log").
 */
export function unexpectedFailure(channel: string, logFile: string | undefined): Words {
  return words('failure.unexpected', {
    ...failureParts(channel),
    ...(logFile === undefined ? nest('log', words('failure.theLog'), '') : { log: logFile }),
  });
}

/**
 * A fault of the window's own code while it did `channel`'s work ('reading' or 'action' when it was no one
 * call): "<doing> failed in this window; <changes>. Reload the window (Ctrl+R) and try again." The window
 * has no log of its own to point to.
 */
export function windowFailure(channel: string): Words {
  if (channel === 'reading' || channel === 'action')
    return words('failure.inWindow', {
      ...nest('doing', words(channel === 'reading' ? 'failure.doing.reading' : 'failure.doing.action'), ''),
      ...nest('changes', words('failure.nothingChanged'), ''),
    });
  return words('failure.inWindow', failureParts(channel));
}
