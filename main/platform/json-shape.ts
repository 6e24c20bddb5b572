// The shape limits of JSON from outside (the receiver, an imported file, the service's answers, settings
// files, rows read back from PostgreSQL), checked on the text before any parser or recursive function runs.
// JSON.parse itself copes with deep nesting, but what comes after it (canonical JSON, zod, structured clone,
// JSON.stringify) recurses once per level: an array nested 8,000 deep in a 17 KB body ran the stack out.
// The scan is one pass over the text, with no recursion and no allocation, so a hostile text costs what its
// length costs. Each boundary names its own limits; the documented bodies need a depth of 3 or 4.

export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects allowed (the top-level value is depth 1). */
  maxDepth: number;
  /** Largest text allowed, in UTF-8 bytes. */
  maxBytes?: number;
}

/** Why a text is past its limits, in words fit to show and to log (no part of the text itself). */
export type JsonShapeRefusal = { reason: 'too_deep'; message: string } | { reason: 'too_large'; message: string };

const OPEN_BRACKET = 0x5b; // [
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACKET = 0x5d; // ]
const CLOSE_BRACE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether `text` is within `limits`, judged without parsing: null when it is, else why not. Brackets inside
 * strings do not count. A text that is not JSON at all passes here and is refused by the parser after.
 */
export function jsonShapeRefusal(text: string, limits: JsonShapeLimits): JsonShapeRefusal | null {
  if (limits.maxBytes !== undefined && text.length > limits.maxBytes / 3) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > limits.maxBytes)
      return {
        reason: 'too_large',
        message: `the JSON is ${bytes} bytes, more than the ${limits.maxBytes} allowed`,
      };
  }
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limits.maxDepth)
        return {
          reason: 'too_deep',
          message: `the JSON is nested more than ${limits.maxDepth} levels deep`,
        };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return null;
}
