// Keys and passwords typed or piped into a command (connect, team): never from arguments, which end up in
// shell history and the process list.
import { UsageError } from './command.js';

/** Reads `n` lines from a stream (the rest is left unread). Fewer lines at end of input is an error. */
export async function readLines(stream: NodeJS.ReadableStream, n: number, what: string[]): Promise<string[]> {
  if (n === 0) return [];
  return new Promise<string[]>((resolve, reject) => {
    let buf = '';
    const finish = (err?: Error) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.pause();
      if (err) return reject(err);
      resolve(buf.split(/\r?\n/).slice(0, n));
    };
    const onData = (chunk: Buffer | string) => {
      buf += chunk.toString();
      if (buf.split(/\r?\n/).length > n) finish();
      else if (buf.length > 64 * 1024) finish(new UsageError('standard input is too long to hold keys'));
    };
    const onEnd = () => {
      const lines = buf.split(/\r?\n/);
      if (lines.length >= n && lines.slice(0, n).every((l) => l.length > 0)) return finish();
      const got = lines.filter((l) => l.length > 0).length;
      finish(
        new UsageError(
          `expected ${what.join(' and ')} on standard input, one per line; got ${got} line${got === 1 ? '' : 's'}`,
        ),
      );
    };
    const onError = (e: Error) => finish(e);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

/** Reads one line from a terminal without echoing it (keys typed by hand must not show on screen). */
export function promptHidden(stdin: NodeJS.ReadStream, stderr: NodeJS.WritableStream, label: string): Promise<string> {
  stderr.write(`${label} (input hidden): `);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = () => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003' || ch === '\u0004') {
          done();
          return reject(new UsageError('cancelled; nothing was saved'));
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}
