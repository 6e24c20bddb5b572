// The one IPC contract, shared by main (handlers, validation), the Electron preload bridge, the
// Chromium bridge and the renderer. A channel has a zod request schema (validated in main: the
// renderer is not trusted) and a response type (a phantom: main produces it, so it is not re-validated).
import { z } from 'zod';
import type { Words } from '../../words/words.shared.js';

export interface ChannelDef<Req extends z.ZodType, Res> {
  request: Req;
  /** Phantom field carrying the response type; always undefined at run time. */
  response?: Res;
}

export function channel<Req extends z.ZodType, Res>(request: Req): ChannelDef<Req, Res> {
  return { request };
}

/** What travels back over IPC: never a thrown Error (it would lose its fields across the bridge). */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export interface IpcError {
  /** Stable, e.g. 'validation', 'authentication', 'network', 'not_found', 'conflict', 'internal'. */
  kind: string;
  /** The English text (logs, tools); the window shows `words` in the person's language when they are set. */
  message: string;
  words?: Words;
  /** The input field at fault, when there is one (form fields are named the same). */
  field?: string;
  /** Per-field messages for a form (English), and their words for the window. */
  fields?: Record<string, string>;
  fieldWords?: Record<string, Words>;
}

/** The request schema of a channel that takes no arguments: `channel<typeof noRequest, Res>(noRequest)`. */
export const noRequest = z.object({});
