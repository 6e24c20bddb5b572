// What a data folder holds, to compare before and after a command: every file and folder under it with its
// mode and, for a file, its bytes' hash. Null when the folder does not exist.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function folderState(dir: string): Record<string, string> | null {
  if (!fs.existsSync(dir)) return null;
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      const mode = (fs.statSync(p).mode & 0o777).toString(8);
      if (e.isDirectory()) {
        out[rel + '/'] = mode;
        walk(p);
      } else out[rel] = `${mode} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}
