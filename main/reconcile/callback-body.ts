// The body of a stored callback-side payload: the callback's `payload` object when the stored text is
// the whole delivery ({"event", "payload"}), else the stored object itself. What the
// rules read amounts from (classify.ts) and the balance movement reads credits from (balance.ts).

/** The payload's body as an object, or null when there is none or it is not JSON of an object. */
export function callbackBody(payload: string | null): Record<string, unknown> | null {
  if (!payload) return null;
  let p: unknown;
  try {
    p = JSON.parse(payload);
  } catch {
    return null;
  }
  const inner = p && typeof p === 'object' && 'payload' in p ? (p as { payload: unknown }).payload : p;
  return inner && typeof inner === 'object' ? (inner as Record<string, unknown>) : null;
}
