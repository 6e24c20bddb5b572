// The copy of a snapshot's two tables into the desk (copy-worker.ts), run from the desk's side: the
// worker starts at once, beside the checks, and holds its transaction open until it is told to commit
// (once both checks passed, with the indexes to rebuild) or to roll back (anything else).
import { launchWorker } from '../../platform/launch-worker.js';
import type { CopyCommand, CopyJob, CopyMessage } from './copy-worker.js';
import { SnapshotRejectedError } from './rejected.js';

/** The tables whose indexes in the file did not match their rows: rebuilt before the commit. */
export type CopyReindex = ('collections' | 'collection_events')[];

export interface CopyRun {
  /**
   * Rebuilds the indexes of `reindex` (whose indexes in the file did not match its rows), then commits;
   * resolves once committed; rejects with SnapshotRejectedError when the copy could not be made.
   */
  commit(signatureCheck?: { signed: number; events: number }, reindex?: CopyReindex): Promise<void>;
  rollback(): Promise<void>;
}

/** The copy-worker, started at once; it holds its transaction open until told what to do with it. */
export function startCopy(job: CopyJob): CopyRun {
  const w = launchWorker(import.meta.url, 'copy-worker', job);
  const messages: CopyMessage[] = [];
  let wake: (() => void) | undefined;
  let exited = false;
  w.on('message', (m: CopyMessage) => {
    messages.push(m);
    wake?.();
  });
  w.on('error', (e) => {
    messages.push({ type: 'error', message: e.message });
    wake?.();
  });
  w.on('exit', () => {
    exited = true;
    wake?.();
  });
  const nextMessage = async (): Promise<CopyMessage> => {
    while (!messages.length) {
      if (exited) return { type: 'error', message: 'the snapshot copy stopped' };
      await new Promise<void>((r) => (wake = r));
    }
    return messages.shift()!;
  };
  let ended = false;
  const end = async (command: CopyCommand): Promise<CopyMessage> => {
    ended = true;
    if (exited) return { type: 'error', message: 'the snapshot copy stopped' };
    w.postMessage(command);
    let m: CopyMessage;
    do m = await nextMessage();
    while (m.type === 'copied' || m.type === 'refused');
    return m;
  };
  return {
    async commit(signatureCheck, reindex) {
      const first = await nextMessage();
      if (first.type === 'refused') {
        await end({ what: 'rollback' });
        throw new SnapshotRejectedError(first.reason);
      }
      if (first.type !== 'copied') {
        await end({ what: 'rollback' });
        throw new SnapshotRejectedError(
          `this desk could not copy it: ${'message' in first ? first.message : first.type}`,
        );
      }
      const m = await end({
        what: 'commit',
        ...(signatureCheck ? { signatureCheck } : {}),
        ...(reindex?.length ? { reindex } : {}),
      });
      if (m.type !== 'committed')
        throw new SnapshotRejectedError(`this desk could not copy it: ${'message' in m ? m.message : m.type}`);
    },
    async rollback() {
      if (!ended) await end({ what: 'rollback' });
    },
  };
}
