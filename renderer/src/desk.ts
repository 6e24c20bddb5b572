// The renderer's only way to main: a typed wrapper over window.desk (installed by the Electron preload
// or by the Chromium shell's init script). Failures become a DeskError carrying kind / field / fields.
import type {
  ChannelName,
  DeskApi,
  DeskEventName,
  DeskEvents,
  IpcError,
  RequestOf,
  ResponseOf,
} from '../../main/ipc/contract/index.js';

declare global {
  interface Window {
    desk?: DeskApi;
  }
}

export class DeskError extends Error {
  readonly kind: string;
  readonly field: string | undefined;
  readonly fields: Record<string, string> | undefined;
  constructor(error: IpcError) {
    super(error.message);
    this.name = 'DeskError';
    this.kind = error.kind;
    this.field = error.field;
    this.fields = error.fields;
  }
}

function api(): DeskApi {
  if (!window.desk)
    throw new DeskError({
      kind: 'internal',
      message: 'The app bridge (window.desk) is missing; start Merchant Desk with npm start.',
    });
  return window.desk;
}

/** Calls a channel; resolves with its response or throws a DeskError. */
export async function invoke<K extends ChannelName>(channel: K, request: RequestOf<K>): Promise<ResponseOf<K>> {
  let result;
  try {
    result = await api().invoke(channel, request);
  } catch (e) {
    if (e instanceof DeskError) throw e;
    throw new DeskError({
      kind: 'internal',
      message:
        'Merchant Desk did not answer; if you were saving something, look whether it was saved before trying again.',
    });
  }
  if (!result.ok) throw new DeskError(result.error);
  return result.value;
}

/** Subscribes to a push event; returns the unsubscribe function. */
export function on<E extends DeskEventName>(event: E, listener: (payload: DeskEvents[E]) => void): () => void {
  if (!window.desk) return () => {};
  return window.desk.on(event, listener);
}

/**
 * A fault of this window's own code (main's answers are always a DeskError, its words already chosen):
 * what failed and what that left changed, never the error's own text ("Maximum call stack size exceeded",
 * a class name). The window has no log of its own to point to, so it says how to start again.
 */
export function windowFault(doing: string, changes: string): DeskError {
  return new DeskError({
    kind: 'internal',
    message: `${doing} failed in this window; ${changes}. Reload the window (Ctrl+R) and try again.`,
  });
}

/** A message fit to show: DeskError messages are written for people; anything else says only what failed. */
export function errorMessage(e: unknown): string {
  if (e instanceof DeskError) return e.message;
  return windowFault('This action', 'nothing was changed').message;
}
