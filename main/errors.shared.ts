// The one error family of main (shared: it imports nothing, so money rules the renderer bundles may use it). Every capability's error class is a thin subclass of DeskError, so
// that one mapper (main/ipc/dispatch.ts toIpcError) turns any of them into what the renderer sees,
// without knowing each class. This module imports nothing, so every layer (money, store, service,
// settings, collections, app) may import it without an arrow pointing back up.
//
// An error a person reads is made from Words (main/words/): `message` stays their English rendering (logs,
// the CLI and tests read it), and `words` (with `fieldWords` beside `fields`) travel to the window, which
// renders them in the person's language.
//
// `expose` says whether the message is written for the user and safe to show as it is (no card data,
// keys or paths of others). An error that is not exposed is reported as 'internal' with a generic
// message; its detail goes to the log only.

import type { Words } from './words/words.shared.js';

/**
 * The English rendering of words, given by main/words/words.shared.ts as it loads: this module imports
 * nothing at run time, so the many modules (and worker threads) that only need the error classes do not
 * load the catalogue and the message formatter. Whoever makes words has loaded it.
 */
let englishOfWords: ((w: Words) => string) | null = null;
export function setEnglish(render: (w: Words) => string): void {
  englishOfWords = render;
}
const english = (w: Words): string => (englishOfWords ? englishOfWords(w) : w.id);

/**
 * The text of anything caught (`catch (e: unknown)`): an Error's message, else the thrown value as text.
 * One way, instead of `(e as Error).message`, which reads `undefined` when a library throws a string.
 */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export interface DeskErrorOptions {
  /** The input field at fault (form fields and settings paths are named the same as over IPC). */
  field?: string | undefined;
  /** Per-field messages for a form with several wrong fields (made from fieldWords when only those are given). */
  fields?: Record<string, string> | undefined;
  /** Per-field words: each field's message for the window to render in the person's language. */
  fieldWords?: Record<string, Words> | undefined;
  /** True when the message may be shown to the user as it is. Default false. */
  expose?: boolean;
  cause?: unknown;
}

export class DeskError extends Error {
  /** Stable and safe to show, e.g. 'validation', 'not_found', 'keychain_unavailable', 'network'. */
  readonly kind: string;
  readonly field: string | undefined;
  readonly fields: Record<string, string> | undefined;
  readonly expose: boolean;
  /** What a person reads, when the error was made from words (the window renders these, not `message`). */
  readonly words: Words | undefined;
  readonly fieldWords: Record<string, Words> | undefined;
  constructor(kind: string, message: string | Words, opts: DeskErrorOptions = {}) {
    super(
      typeof message === 'string' ? message : english(message),
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.words = typeof message === 'string' ? undefined : message;
    this.fieldWords = opts.fieldWords;
    // The class's own name ('SettingsError', 'MoneyError', ...): logs and the poller go by it.
    this.name = new.target.name;
    this.kind = kind;
    this.field = opts.field;
    this.fields =
      opts.fields ??
      (opts.fieldWords
        ? Object.fromEntries(Object.entries(opts.fieldWords).map(([k, w]) => [k, english(w)]))
        : undefined);
    this.expose = opts.expose ?? false;
  }
}
