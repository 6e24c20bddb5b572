// The renderer never names a file path (DESIGN.md, Trust boundaries): where it may name a file at all, it
// is a plain name inside a folder main owns (<data folder>/exports, <data folder>/imports). No separator,
// no drive or stream colon, no leading dot (so no "..", no hidden file), no control character.
import { z } from 'zod';

const PLAIN_NAME_MESSAGE = 'must be a plain file name (no folder, no "/", "\\", ":" or leading ".")';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[/\\:\u0000-\u001f\u007f]/;

export function isPlainFileName(s: string): boolean {
  return s.length > 0 && s.length <= 200 && !UNSAFE.test(s) && !s.startsWith('.') && s.trim() === s;
}

export const plainFileName = z
  .string()
  .max(200, 'errors.zod.noteTooLong')
  .refine(isPlainFileName, { message: PLAIN_NAME_MESSAGE });

/**
 * A field that used to carry a path (or looks like one would): refused with its own field error, so a
 * renderer sending a path learns which field and why, and main never sees the value.
 */
export const noPath = z.never({ message: 'errors.zod.noPath' }).optional();
