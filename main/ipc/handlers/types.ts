// The handler-table pattern. A capability exports
//   (ops: XOperations, q: XQueries) => HandlersFor<typeof xChannels>
// from main/ipc/handlers/<capability>.ts, XOperations and XQueries naming the operations and reads it
// calls (Pick<Operations, ...>, Pick<Queries, ...>: a handler is given what it uses, and a test builds
// only that); main/ipc/handlers/index.ts merges the tables; dispatch.ts validates each request against the
// contract's zod schema before the handler sees it.
import type { z } from 'zod';
import type { ChannelDef } from '../contract/define.js';

/** Who is calling; the shells fill it in (the Electron shell has already checked the sender). */
export interface CallContext {
  /** Aborted when the window that asked goes away (best effort). */
  signal?: AbortSignal;
}

type ReqOf<D> = D extends ChannelDef<infer Req, unknown> ? z.output<Req> : never;
type ResOf<D> = D extends ChannelDef<z.ZodType, infer Res> ? Res : never;

/** One handler per channel of a capability's map; the request is already parsed (zod output type). */
export type HandlersFor<M extends Record<string, ChannelDef<z.ZodType, unknown>>> = {
  [K in keyof M]: (request: ReqOf<M[K]>, ctx: CallContext) => Promise<ResOf<M[K]>> | ResOf<M[K]>;
};

/** The loosely typed form dispatch works with. */
export type AnyHandler = (request: unknown, ctx: CallContext) => unknown;
export type HandlerTable = Record<string, AnyHandler>;
