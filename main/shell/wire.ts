// What the Chromium shell sends its window (an IPC answer, a turn's pushes) as JSON text when JSON carries
// it unchanged. Playwright serialises a value into a tree of tagged nodes and checks that tree against its
// protocol's schema on both sides of its driver, node by node: a page of 100 collections became thousands
// of nodes, and with the pushes it was about a tenth of the desk's main-process CPU while it followed a
// busy team (bench:follow --profile, docs/benchmarks.md). One string is one node. A value JSON would
// change (a Date, a Map, NaN, -0, undefined in an array, a bigint) still goes as before, as a value, so
// the window gets what Playwright gave it; the window's side parses text and takes anything else as is.

/** Thrown by the replacer when JSON would not give the value back as it is. */
const LOSSY = Symbol('lossy');

function plain(this: unknown, key: string, v: unknown): unknown {
  // The holder's own value, before any toJSON (a Date arrives as `v` already a string).
  const own = (this as Record<string, unknown>)[key];
  if (typeof own === 'object' && own !== null && !Array.isArray(own)) {
    const proto = Object.getPrototypeOf(own) as unknown;
    if (proto !== Object.prototype && proto !== null) throw LOSSY; // Date, Map, Set, Buffer, a class
  }
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'object':
      return v;
    case 'number':
      if (!Number.isFinite(v) || Object.is(v, -0)) throw LOSSY;
      return v;
    case 'undefined':
      // A missing field reads the same as an undefined one; an undefined array item would become null.
      if (Array.isArray(this)) throw LOSSY;
      return v;
    default:
      throw LOSSY; // bigint, function, symbol
  }
}

/** `value` as JSON text when JSON gives it back unchanged, else `value` itself. */
export function asWireText<T>(value: T): string | T {
  try {
    return JSON.stringify(value, plain);
  } catch (e) {
    if (e === LOSSY) return value;
    throw e;
  }
}
