// The shape limits of a callback from outside (issue 39), in one place for the receiver, the JSON-lines
// import and a team desk's re-check of a stored body, with the words a refusal is said in. Checked on the
// text (platform/json-shape.ts: one pass, no recursion) before any parser: what reads a callback after
// (canonical JSON for its dedupe key, zod, JSON.stringify of a sample) recurses once per level, and an
// array nested 8,000 deep in a 17 KB body ran the stack out: a 500 the service would retry forever.
//
// The documented body is {"event", "payload": {...}}: a depth of 2. A service that adds an object or two
// stays far inside 32; nothing that deep is ever needed, and every recursion after stays shallow.
import { jsonShapeRefusal } from '../platform/json-shape.js';

/** Deepest nesting a callback body may have (its top-level object is depth 1). */
export const CALLBACK_MAX_DEPTH = 32;

/** Largest body the receiver reads, in bytes (413 past it; Fastify's bodyLimit). */
export const CALLBACK_BODY_LIMIT = 64 * 1024;

/** Longest import line, in characters by default: the receiver's body limit plus room for the headers. */
export const IMPORT_LINE_MAX_CHARS = 256 * 1024;

/** Why a callback's text was refused before it was read; also its reason in the security log. */
export interface ShapeRefusal {
  reason: 'too_deep';
  message: string;
}

/** A callback body's text (a delivery, a raw body in an import line, a stored body): null when within limits. */
export function callbackBodyRefusal(text: string): ShapeRefusal | null {
  const r = jsonShapeRefusal(text, { maxDepth: CALLBACK_MAX_DEPTH });
  return (
    r && {
      reason: 'too_deep',
      message: `the body is nested more than ${CALLBACK_MAX_DEPTH} levels deep; a callback never is`,
    }
  );
}

/**
 * An import line ({"headers": {...}, "body": <callback>}: one level above its callback) before it is parsed:
 * null when within limits, else the reason in words that follow "line N".
 */
export function importLineRefusal(text: string): ShapeRefusal | null {
  const r = jsonShapeRefusal(text, { maxDepth: CALLBACK_MAX_DEPTH + 1 });
  return (
    r && {
      reason: 'too_deep',
      message: `is nested more than ${CALLBACK_MAX_DEPTH + 1} levels deep; a saved callback never is`,
    }
  );
}

/** The one line the receiver logs for a refusal of its kind, before it only counts the rest for the hour. */
export function refusalLogLine(refusal: ShapeRefusal): string {
  return `callback refused: ${refusal.message} (later refusals for this reason are counted in the security log, not logged, until the hour ends)`;
}
