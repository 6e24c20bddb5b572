// Add a capability's channels by spreading its map here. Channel names are "capability.action".
import type { z } from 'zod';
import type { ChannelDef } from './define.js';
import { appChannels, appEvents } from './app.js';
import { balancesChannels, balancesEvents } from './balances.js';
import { optionsChannels, optionsEvents } from './options.js';
import { settingsChannels, settingsEvents } from './settings.js';
import { collectionsChannels, type collectionsEvents } from './collections.js';
import { reconcileChannels, type reconcileEvents } from './reconcile.js';
import { reportsChannels, type reportsEvents } from './reports.js';
import { lockChannels, type lockEvents } from './lock.js';
import { teamChannels, type teamEvents } from './team.js';

export const channels = {
  ...appChannels,
  ...balancesChannels,
  ...optionsChannels,
  ...settingsChannels,
  ...collectionsChannels,
  ...reconcileChannels,
  ...reportsChannels,
  ...lockChannels,
  ...teamChannels,
} as const;

/** Push events from main to the renderer: name -> payload type. */
export type DeskEvents = appEvents &
  balancesEvents &
  optionsEvents &
  settingsEvents &
  collectionsEvents &
  reconcileEvents &
  reportsEvents &
  lockEvents &
  teamEvents;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type RequestOf<K extends ChannelName> =
  Channels[K] extends ChannelDef<infer Req, unknown> ? z.input<Req> : never;
export type ParsedRequestOf<K extends ChannelName> =
  Channels[K] extends ChannelDef<infer Req, unknown> ? z.output<Req> : never;
export type ResponseOf<K extends ChannelName> = Channels[K] extends ChannelDef<z.ZodType, infer Res> ? Res : never;
export type DeskEventName = keyof DeskEvents;

/** The object the preload (Electron) or the init script (Chromium shell) installs as window.desk. */
export interface DeskApi {
  invoke<K extends ChannelName>(
    channel: K,
    request: RequestOf<K>,
  ): Promise<import('./define.js').IpcResult<ResponseOf<K>>>;
  /** Subscribe to a push event; returns an unsubscribe function. */
  on<E extends DeskEventName>(event: E, listener: (payload: DeskEvents[E]) => void): () => void;
}

export * from './define.js';
