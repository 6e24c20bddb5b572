// The single entry point both shells call for window.desk.invoke(channel, request). It never throws:
// the answer is always an IpcResult, because a thrown Error loses its fields across either bridge.
import { ZodError, type z } from 'zod';
import type { Logger } from 'pino';
import { channels, type ChannelName, type RequestOf, type ResponseOf } from './contract/index.js';
import type { IpcError, IpcResult } from './contract/define.js';
import type { CallContext, HandlerTable } from './handlers/types.js';
import { DeskError } from '../errors.shared.js';
import type { IpcGate } from './lock-gate.js';
import { unexpectedFailure } from '../words/failure-words.shared.js';
import { asWords, english, isMessageId, words, type MessageId, type Words } from '../words/words.shared.js';

// Every channel says what it was doing when it fails unexpectedly (main/words/failure.shared.ts): a channel
// without its "doing" in the catalogue fails type checking here.
const everyChannelSaid: [`failure.doing.${ChannelName}`] extends [MessageId] ? true : never = true;
void everyChannelSaid;

export type Dispatch = (channel: unknown, request: unknown, ctx?: CallContext) => Promise<IpcResult<unknown>>;

/**
 * `gate` (the idle lock) sees every call to a known channel first and may refuse it. `logFile` is where
 * `logger` writes: an unexpected failure names it (words/failure-words.shared.ts), never its own text.
 */
export function createDispatcher(
  handlers: HandlerTable,
  logger?: Pick<Logger, 'error' | 'warn'>,
  gate?: IpcGate,
  logFile?: string,
): Dispatch {
  const known = channels as Record<string, { request: z.ZodType }>;
  return async (channel, request, ctx = {}) => {
    if (typeof channel !== 'string' || !Object.hasOwn(known, channel) || !Object.hasOwn(handlers, channel)) {
      return {
        ok: false,
        error: {
          kind: 'validation',
          message: `unknown channel "${String(channel).slice(0, 80)}"`,
          words: words('errors.unknownChannel'),
        },
      };
    }
    const refused = gate?.admit(channel);
    if (refused) return { ok: false, error: refused };
    const parsed = known[channel]!.request.safeParse(request ?? {});
    if (!parsed.success) return { ok: false, error: fromZod(parsed.error) };
    try {
      const value = await handlers[channel]!(parsed.data, ctx);
      return { ok: true, value: value === undefined ? null : value };
    } catch (e) {
      const error = toIpcError(e);
      if (error.kind === 'internal') {
        // The request is NOT logged: it may hold card data or keys.
        logger?.error({ channel, err: e }, 'IPC handler failed');
        error.words = unexpectedFailure(channel, logFile);
        error.message = english(error.words);
      }
      return { ok: false, error };
    }
  };
}

/**
 * A zod issue's words: the contract's schemas give a catalogue id as their message (e.g.
 * 'errors.zod.wholeNumber'), so English and French read as the catalogue says.
 */
function zodWords(message: string): Words {
  // zod's own English (a request no screen of this version sends) keeps its text, said as a value.
  return isMessageId(message) ? words(message) : words('errors.zod.other', { text: message });
}

/** zod issues -> the first field's message, and every field's message for a form. */
function fromZod(err: ZodError): IpcError {
  const fieldWords: Record<string, Words> = {};
  for (const issue of err.issues) {
    const key = issue.path.map(String).join('.') || '(request)';
    fieldWords[key] ??= zodWords(issue.message);
  }
  const [field, first] = Object.entries(fieldWords)[0] ?? ['(request)', words('errors.zod.invalidRequest')];
  const fields = Object.fromEntries(Object.entries(fieldWords).map(([k, w]) => [k, english(w)]));
  const out: IpcError = {
    kind: 'validation',
    message: field === '(request)' ? english(first) : `${field}: ${english(first)}`,
    // The window shows the words at the field they name (or at the top of the form).
    words: first,
    fields,
    fieldWords,
  };
  if (field !== '(request)') out.field = field;
  return out;
}

const INTERNAL: IpcError = {
  kind: 'internal',
  message: 'Something went wrong inside Merchant Desk; the details are in the log.',
  words: words('errors.internal'),
};

/**
 * Any thrown value -> what the renderer sees. One family (DeskError, main/errors.shared.ts, which the service's
 * errors belong to): an exposed one keeps its kind, message, field and fields; one that is not exposed,
 * and anything unknown, is 'internal' with no detail (the dispatcher logs it).
 */
export function toIpcError(e: unknown): IpcError {
  if (e instanceof ZodError) return fromZod(e);
  if (e instanceof DeskError) return e.expose ? exposed(e) : { ...INTERNAL };
  // An error from code that does not import main/errors.shared.ts (a library, a worker's rebuilt error) may
  // still say it is meant for the user.
  if (e instanceof Error && (e as { expose?: unknown }).expose === true) {
    const x = e as Error & { kind?: unknown; field?: unknown; fields?: unknown; words?: unknown; fieldWords?: unknown };
    return exposed({
      kind: typeof x.kind === 'string' ? x.kind : 'validation',
      message: e.message,
      words: asWords(x.words) ?? undefined,
      field: typeof x.field === 'string' ? x.field : undefined,
      fields: x.fields && typeof x.fields === 'object' ? (x.fields as Record<string, string>) : undefined,
      fieldWords:
        x.fieldWords && typeof x.fieldWords === 'object' ? (x.fieldWords as Record<string, Words>) : undefined,
    });
  }
  if (e instanceof Error && e.name === 'AbortError')
    return { kind: 'cancelled', message: 'cancelled', words: words('errors.cancelled') };
  return { ...INTERNAL };
}

function exposed(e: {
  kind: string;
  message: string;
  words?: Words | undefined;
  field?: string | undefined;
  fields?: Record<string, string> | undefined;
  fieldWords?: Record<string, Words> | undefined;
}): IpcError {
  const out: IpcError = { kind: e.kind, message: e.message };
  if (e.words) out.words = e.words;
  if (e.field) out.field = e.field;
  if (e.fields) out.fields = { ...e.fields };
  if (e.fieldWords) out.fieldWords = { ...e.fieldWords };
  return out;
}

/** A typed view of a dispatcher (tests, tools): the same checks, typed like window.desk.invoke. */
export function typedInvoke(dispatch: Dispatch) {
  return <K extends ChannelName>(channel: K, request: RequestOf<K>): Promise<IpcResult<ResponseOf<K>>> =>
    dispatch(channel, request) as Promise<IpcResult<ResponseOf<K>>>;
}
