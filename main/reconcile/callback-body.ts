// The body of a stored callback-side payload: the callback's `payload` object when the stored text is
// the whole delivery ({"event", "payload"}), else the stored object itself. What the
// rules read amounts from (classify.ts) and the balance movement reads credits from (balance.ts), read
// as the service's JSON is (main/service/wire-json.ts): every digit of an amount as it was sent.
import { readWireJson } from '../service/wire-json.js';

/** The payload's body as an object, or null when there is none or it is not JSON of an object. */
export function callbackBody(payload: string | null): Record<string, unknown> | null {
  if (!payload) return null;
  const read = readWireJson(payload);
  if (!read.ok) return null;
  const p = read.value;
  const inner = p && typeof p === 'object' && 'payload' in p ? (p as { payload: unknown }).payload : p;
  return inner && typeof inner === 'object' ? (inner as Record<string, unknown>) : null;
}
