// The local callback receiver of a solo profile: started when its settings enable it, and moved (closed
// and started again) when they change. A team desk has none: serve receives the team's callbacks.
import type { Logger } from 'pino';
import { noticeOf } from './event-bus.js';
import { words } from '../words/words.shared.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { loadSettings } from '../settings/index.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
import { sqliteCallbackStore } from '../callbacks/callback-store.js';
import type { Ledger } from '../collections/ledger.js';
import type { AppEventBus } from './event-bus.js';
import { messageOf } from '../errors.shared.js';

export interface LocalReceiver {
  /** Starts, moves or stops the receiver as the settings now say; a failure to start is said in a notice. */
  ensure(): Promise<void>;
  /** Where it receives callbacks, while it runs. */
  url(): string | null;
  /** Closes it if it runs. */
  close(): Promise<void>;
}

export function localReceiver(o: {
  /** Off: ensure() does nothing (the CLI, a team desk). */
  enabled: boolean;
  db: Db;
  /** What the received callbacks are stored through. */
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  getKeys: () => SignatureKeys;
}): LocalReceiver {
  const { db, logger, events } = o;
  let receiver: CallbackReceiver | null = null;
  let receiverKey = '';

  async function ensure(): Promise<void> {
    if (!o.enabled) return;
    const s = loadSettings(db).callbackReceiver;
    const key = JSON.stringify(s);
    if (receiver && key === receiverKey) return;
    if (receiver) {
      await receiver.close();
      receiver = null;
    }
    receiverKey = key;
    if (!s.enabled) return;
    try {
      receiver = await startCallbackReceiver({
        db,
        store: sqliteCallbackStore(db, o.ledger),
        host: s.host,
        port: s.port,
        clock: o.clock,
        logger,
        getKeys: o.getKeys,
        onIngest: (outcome) => {
          events.emit('callbacks.ingested', {
            result: outcome.result,
            reference: 'reference' in outcome ? outcome.reference : null,
          });
        },
      });
      logger.info({ url: receiver.url }, 'callback receiver listening');
    } catch (e) {
      logger.error({ err: e }, 'callback receiver did not start');
      // Why it could not listen is the system's own text (EADDRINUSE...): said as it is.
      events.emit(
        'notice',
        noticeOf(
          'warning',
          words('app.notice.receiverFailed', { host: s.host, port: String(s.port), reason: messageOf(e) }),
        ),
      );
    }
  }

  return {
    ensure,
    url: () => receiver?.url ?? null,
    close: async () => {
      await receiver?.close();
    },
  };
}
