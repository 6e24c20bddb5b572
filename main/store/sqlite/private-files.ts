// The data folder holds the merchant's payment history: only its owner may read it. Folders are 0700
// and files 0600 whatever the umask, and ones made looser by an older version are tightened.
import fs from 'node:fs';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
// S_ISVTX (Node's fs.constants does not export it).
const STICKY = 0o1000;

/**
 * Creates `dir` (and missing parents) owner-only; tightens `dir` itself when it is looser, unless it is a
 * shared folder (sticky bit, like /tmp): a database file opened straight in /tmp must not close /tmp to
 * every other user (PostgreSQL's initdb, running as its own user, then failed on this machine).
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if ((fs.statSync(dir).mode & STICKY) !== 0) return;
  tighten(dir, DIR_MODE);
}

/** Creates `file` empty (0600) when missing; tightens it when it is looser. Never truncates. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', FILE_MODE));
  tighten(file, FILE_MODE);
}

function tighten(p: string, mode: number): void {
  if (process.platform === 'win32') return; // modes do not apply; the folder's ACL is inherited
  const st = fs.statSync(p);
  if ((st.mode & 0o777 & ~mode) !== 0) fs.chmodSync(p, st.mode & mode & 0o777);
}
