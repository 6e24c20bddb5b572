// What the team sync writes behind the screens, told as main's own events (app/event-bus.ts) the way the
// local poller and receiver tell theirs: one notice per pulled batch (not one per collection: a desk
// catching up applies thousands of events a second), one per refusal. The window hears them through the
// renderer push (ipc/push.ts), which also paces them.
import type { Db } from '../store/sqlite/connection.js';
import { noticeOf } from './event-bus.js';
import { words } from '../words/words.shared.js';
import { collectionStatus } from '../store/sqlite/team/applied-events.js';
import type { OutboxEntry } from '../collections/outbox.js';
import { changedCollections, type AppEventBus, type ChangedCollection } from './event-bus.js';

export interface TeamNotices {
  /** A pulled batch was applied: what it changed, in one notice. */
  onApplied(changed: ChangedCollection[]): void;
  /** A pulled batch stored events with no collection (orphans, their resolutions): one notice. */
  onOrphans(stored: number): void;
  /** A new desktop's bulk start copied the team history at once: whoever shows collections reads them again. */
  onCopied(): void;
  /** The team database refused this desk's events: the desk says so at once, and the collections keep saying it. */
  onRefused(entries: readonly OutboxEntry[], reason: string): void;
}

export function teamNotices(events: AppEventBus, db: Db): TeamNotices {
  return {
    onApplied: (changed) => {
      if (changed.length) events.emit('collections.changed', changedCollections(changed));
    },
    onOrphans: (stored) => events.emit('orphans.changed', { stored }),
    onCopied: () => events.emit('callbacks.ingested', { result: 'team-copy', reference: null }),
    onRefused: (entries, reason) => {
      // Never silent: one message per refused event, as the person at the desk reads them.
      for (const x of entries)
        // The event's kind as the record names it, and the database's reason as it gave it.
        events.emit(
          'notice',
          noticeOf(
            'error',
            words('app.notice.refused', {
              reference: x.event.merchantReference,
              kind: x.event.kind.replace(/_/g, ' '),
              reason,
            }),
          ),
        );
      // The collections now say "not accepted by the team database": screens showing them read them again.
      const changed: ChangedCollection[] = [];
      for (const x of entries) {
        if (x.event.collectionId === null) continue;
        const status = collectionStatus(db, x.event.collectionId);
        if (typeof status === 'string')
          changed.push({ id: x.event.collectionId, reference: x.event.merchantReference, status });
      }
      if (changed.length) events.emit('collections.changed', changedCollections(changed));
    },
  };
}
