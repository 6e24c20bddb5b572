// The shape limits of JSON a desk reads back from the team's PostgreSQL (issue 39): a teammate's login, or
// whoever holds the server, can write any text into team.events. Checked on the text (platform/json-shape.ts:
// one pass, no recursion) before it is parsed, in one place for every such read; a text past them is read as
// no value at all, as text that is not JSON already is. A callback's body has its own limits, checked by the
// one reading of a callback (callbacks/shape-limits.ts, through readSignedCallback).
import { jsonShapeRefusal, type JsonShapeLimits } from '../platform/json-shape.js';

/** An event's evidence: {"hmac", "rsa"}, {"query"}, {"restored": ...}: flat, and small. */
export const EVIDENCE_LIMITS: JsonShapeLimits = { maxDepth: 4, maxBytes: 16 * 1024 };

/** An intent's payload (record.ts IntentPayload): a few fields and the billing object. */
export const INTENT_PAYLOAD_LIMITS: JsonShapeLimits = { maxDepth: 8, maxBytes: 64 * 1024 };

/** `text` parsed when it is JSON within `limits`, else undefined. */
export function teamJson(text: string, limits: JsonShapeLimits): unknown {
  if (jsonShapeRefusal(text, limits)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
