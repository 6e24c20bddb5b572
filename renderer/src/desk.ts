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
import { asWords, english, words, type Words } from '../../main/words/words.shared.js';
import { windowFailure } from '../../main/words/failure-words.shared.js';

declare global {
  interface Window {
    desk?: DeskApi;
  }
}

export class DeskError extends Error {
  readonly kind: string;
  readonly field: string | undefined;
  readonly fields: Record<string, string> | undefined;
  /** What the person reads (rendered by useWords' say), and each field's. */
  readonly words: Words | undefined;
  readonly fieldWords: Record<string, Words> | undefined;
  constructor(error: IpcError) {
    super(error.message);
    this.name = 'DeskError';
    this.kind = error.kind;
    this.field = error.field;
    this.fields = error.fields;
    this.words = asWords(error.words) ?? undefined;
    this.fieldWords = error.fieldWords;
  }
}

function api(): DeskApi {
  if (!window.desk)
    throw new DeskError({
      kind: 'internal',
      message: 'The app bridge (window.desk) is missing; start Merchant Desk with npm start.',
      words: words('ui.error.bridge'),
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
      words: words('ui.error.noAnswer'),
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
 * A fault of this window's own code while it did `channel`'s work (main's answers are always a DeskError,
 * its words already chosen): what failed and what that left changed, never the error's own text ("Maximum
 * call stack size exceeded", a class name). The window has no log of its own to point to, so it says how
 * to start again.
 */
export function windowFault(channel: ChannelName | 'reading' | 'action'): DeskError {
  const w = windowFailure(channel);
  return new DeskError({ kind: 'internal', message: english(w), words: w });
}

/** The words of an error fit to show: a DeskError's own; anything else is generic. */
export function errorWords(e: unknown): Words {
  if (e instanceof DeskError && e.words) return e.words;
  return windowFailure('action');
}

/**
 * What a person reads for an error, through `say` (useWords): a DeskError's words in their language.
 * A DeskError from main without words (an error not yet given words) shows its English message.
 */
export function errorText(say: (w: unknown, fallback?: string) => string, e: unknown): string {
  if (e instanceof DeskError) return e.words ? say(e.words, e.message) : e.message;
  return say(windowFailure('action'));
}

/** A problem main or a form check found: words (said in the person's language), or a text as it came. */
export function problemText(
  say: (w: unknown, fallback?: string) => string,
  p: Words | string | undefined,
): string | undefined {
  if (p === undefined) return undefined;
  return typeof p === 'string' ? p : say(p);
}

/** A field's message of an error (`fields[name]`), in the person's language; undefined when it has none. */
export function fieldErrorText(
  say: (w: unknown, fallback?: string) => string,
  e: unknown,
  name: string,
): string | undefined {
  if (!(e instanceof DeskError)) return undefined;
  const w = e.fieldWords?.[name];
  if (w) return say(w, e.fields?.[name]);
  if (e.fields?.[name] !== undefined) return e.fields[name];
  return e.field === name ? errorText(say, e) : undefined;
}
