// The shape limits of the settings a desk reads back (issue 39): each setting's stored JSON and the small
// JSON files of the data folder (active-profile.json, the embedded sandbox's sandbox.json). Anyone with the
// folder can edit them; a value past these is read as the unreadable value it is (the default, with a
// problem named), before any parser or schema runs on it. The deepest setting is two levels (an object of
// scalars); a CA certificate's PEM is the longest text (64 KiB at most).
import fs from 'node:fs';
import { jsonShapeRefusal, type JsonShapeLimits } from '../platform/json-shape.js';

/** One setting's stored value. */
export const SETTING_VALUE_LIMITS: JsonShapeLimits = { maxDepth: 8, maxBytes: 256 * 1024 };

/** active-profile.json: {"profile": "..."}. */
export const ACTIVE_PROFILE_LIMITS: JsonShapeLimits = { maxDepth: 2, maxBytes: 4 * 1024 };

/** The embedded sandbox's sandbox.json: its URLs and keys. */
export const SANDBOX_INFO_LIMITS: JsonShapeLimits = { maxDepth: 4, maxBytes: 64 * 1024 };

/** A JSON value read from `text`, or why it cannot be (past the limits, or not JSON), in words. */
export function readJson(text: string, limits: JsonShapeLimits): { value: unknown } | { problem: string } {
  const refused = jsonShapeRefusal(text, limits);
  if (refused) return { problem: refused.message };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: 'it is not valid JSON' };
  }
}

/**
 * A small JSON file read whole, never more than `limits.maxBytes` of it: its value, or why it cannot be
 * read (a file that is not there throws, with its errno code, for the caller to say).
 */
export function readJsonFile(file: string, limits: JsonShapeLimits): { value: unknown } | { problem: string } {
  const max = limits.maxBytes ?? Infinity;
  if (fs.statSync(file).size > max) return { problem: `the file is larger than the ${max} bytes it may be` };
  return readJson(fs.readFileSync(file, 'utf8'), limits);
}
