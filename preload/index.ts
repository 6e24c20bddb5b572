// The Electron preload: runs sandboxed with contextIsolation, so it may only require 'electron' and
// imports the contract for types alone. It exposes exactly one object, window.desk (DeskApi).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { DeskApi, DeskEventName } from '../main/ipc/contract/index.js';
import type { IpcResult } from '../main/ipc/contract/define.js';

// Channel names of the bridge itself (main/shell/electron.ts listens on the same).
const INVOKE = 'desk:invoke';
const EVENT = 'desk:event';

type Listener = (payload: unknown) => void;
const listeners = new Map<string, Set<Listener>>();

ipcRenderer.on(EVENT, (_e: IpcRendererEvent, name: unknown, payload: unknown) => {
  if (typeof name !== 'string') return;
  for (const l of listeners.get(name) ?? []) {
    try {
      l(payload);
    } catch {
      // a listener's failure must not stop the others
    }
  }
});

const desk: DeskApi = {
  invoke(channel, request) {
    return ipcRenderer.invoke(INVOKE, String(channel), request) as Promise<IpcResult<never>>;
  },
  on(event: DeskEventName, listener) {
    const set = listeners.get(event) ?? new Set<Listener>();
    listeners.set(event, set);
    set.add(listener as Listener);
    return () => {
      set.delete(listener as Listener);
    };
  },
};

contextBridge.exposeInMainWorld('desk', Object.freeze(desk));
