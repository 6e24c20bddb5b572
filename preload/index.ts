// The Electron preload: runs sandboxed with contextIsolation, so it may only require 'electron' and
// imports the contract for types alone. It exposes exactly one object, window.desk (DeskApi).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { DeskApi, DeskEventName } from '../main/ipc/contract/index.js';
import type { IpcResult } from '../main/ipc/contract/define.js';

// Channel names of the bridge itself (main/shell/electron.ts listens on the same).
const INVOKE = 'desk:invoke';
const EVENT = 'desk:event';
const HEAR = 'desk:hear';

type Listener = (payload: unknown) => void;
const listeners = new Map<string, Set<Listener>>();

// Main holds back a push nobody listens for (main/shell/heard-pushes.ts): it is told which events have
// listeners, once per turn when that changed, as the Chromium shell's init script tells it.
let told = '';
let telling = false;
function tell(): void {
  if (telling) return;
  telling = true;
  queueMicrotask(() => {
    telling = false;
    const names = JSON.stringify(
      [...listeners]
        .filter(([, set]) => set.size > 0)
        .map(([name]) => name)
        .sort(),
    );
    if (names === told) return;
    told = names;
    ipcRenderer.send(HEAR, names);
  });
}

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
    if (set.size === 1) tell();
    return () => {
      if (set.delete(listener as Listener) && set.size === 0) tell();
    };
  },
};

contextBridge.exposeInMainWorld('desk', Object.freeze(desk));
