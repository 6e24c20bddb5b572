// Push events from main to the renderer (DeskEvents in the contract). Capabilities emit; each shell
// subscribes once and forwards to its window(s).
import type { DeskEventName, DeskEvents } from '../ipc/contract/index.js';

export type DeskEventListener = <E extends DeskEventName>(event: E, payload: DeskEvents[E]) => void;

export interface DeskEmitter {
  emit<E extends DeskEventName>(event: E, payload: DeskEvents[E]): void;
  /** Every event; returns an unsubscribe function. */
  subscribe(listener: DeskEventListener): () => void;
}

export function createEmitter(onListenerError?: (e: unknown) => void): DeskEmitter {
  const listeners = new Set<DeskEventListener>();
  return {
    emit(event, payload) {
      for (const l of [...listeners]) {
        try {
          l(event, payload);
        } catch (e) {
          onListenerError?.(e);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
