// A SCRAM-SHA-256 verifier (RFC 5802/7677, in PostgreSQL's text form), computed on the desktop so an
// operator's password never travels to the server or its logs in plain text; psql's \password does the same.
import crypto from 'node:crypto';

/** PostgreSQL's default iteration count (scram_iterations) as of 15. */
const SCRAM_ITERATIONS = 4096;

export function scramVerifier(password: string, iterations = SCRAM_ITERATIONS, salt = crypto.randomBytes(16)): string {
  // PostgreSQL applies SASLprep; NFKC is its main step and leaves ASCII unchanged.
  const salted = crypto.pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = crypto.createHash('sha256').update(clientKey).digest();
  const serverKey = crypto.createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
