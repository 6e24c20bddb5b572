// Where the team command's passwords come from, and where they may not: never from arguments (shell
// history, the process list). The sign-in password comes from PGPASSWORD, a hidden prompt on a terminal,
// or the first line of standard input; a new operator password from MERCHANT_DESK_NEW_PASSWORD, a hidden
// prompt (typed twice), or the next line.
import { UsageError, type CliContext } from '../command.js';
import { promptHidden } from '../hidden-input.js';
import { MIN_PASSWORD_LENGTH } from '../../team/roles.shared.js';

/** The environment variables passwords may come from (PGPASSWORD is the one psql and pg_dump read). */
export const SIGN_IN_PASSWORD_ENV = 'PGPASSWORD';
export const NEW_PASSWORD_ENV = 'MERCHANT_DESK_NEW_PASSWORD';

/** Lines of standard input, read one at a time as they are needed (a pipe or a file). */
class StdinLines {
  private buf = '';
  private ended = false;
  private waiting: (() => void) | null = null;
  private started = false;
  constructor(private readonly stream: NodeJS.ReadableStream) {}

  private start(): void {
    if (this.started) return;
    this.started = true;
    const wake = () => {
      const w = this.waiting;
      this.waiting = null;
      w?.();
    };
    this.stream.on('data', (chunk: Buffer | string) => {
      this.buf += chunk.toString();
      if (this.buf.length > 64 * 1024) this.ended = true; // not a password: stop reading
      wake();
    });
    this.stream.on('end', () => {
      this.ended = true;
      wake();
    });
    this.stream.on('error', () => {
      this.ended = true;
      wake();
    });
    this.stream.resume();
  }

  /** The next line without its line end, or null when the input ended first. */
  async next(): Promise<string | null> {
    this.start();
    for (;;) {
      const nl = this.buf.search(/\r?\n/);
      if (nl >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(this.buf[nl] === '\r' ? nl + 2 : nl + 1);
        return line;
      }
      if (this.ended) {
        const last = this.buf;
        this.buf = '';
        return last.length > 0 ? last : null;
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    this.stream.pause();
  }
}

/** Where passwords come from: the environment, a hidden prompt on a terminal, or standard input. */
export class Passwords {
  private readonly lines: StdinLines;
  private readonly tty: NodeJS.ReadStream | null;
  constructor(private readonly ctx: CliContext) {
    const stdin = ctx.io.stdin as NodeJS.ReadStream;
    this.tty = stdin.isTTY ? stdin : null;
    this.lines = new StdinLines(stdin);
  }

  async signIn(login: string): Promise<string> {
    const fromEnv = this.ctx.env[SIGN_IN_PASSWORD_ENV];
    if (fromEnv) return fromEnv;
    if (this.tty) return promptHidden(this.tty, this.ctx.io.stderr, `password of ${login}`);
    const line = await this.lines.next();
    if (!line) {
      throw new UsageError(
        `no password to sign in as ${login}: pipe it on standard input (first line), set ${SIGN_IN_PASSWORD_ENV}, ` +
          'or use --no-password when the server trusts this login without one',
      );
    }
    return line;
  }

  async newPassword(login: string): Promise<string> {
    const fromEnv = this.ctx.env[NEW_PASSWORD_ENV];
    let password: string;
    if (fromEnv) password = fromEnv;
    else if (this.tty) {
      password = await promptHidden(this.tty, this.ctx.io.stderr, `new password for ${login}`);
      checkNewPassword(password);
      const again = await promptHidden(this.tty, this.ctx.io.stderr, `new password for ${login}, again`);
      if (again !== password) throw new UsageError('the two passwords typed differ; nothing was changed');
    } else {
      const line = await this.lines.next();
      if (line === null) {
        throw new UsageError(
          `no new password for ${login}: pipe it on standard input (after the sign-in password, if that is piped too) or set ${NEW_PASSWORD_ENV}`,
        );
      }
      password = line;
    }
    checkNewPassword(password);
    return password;
  }

  close(): void {
    this.lines.close();
  }
}

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`the new password must be at least ${MIN_PASSWORD_LENGTH} characters`);
}

/** Refuses a password given where it would be seen: an option, or inside the database URL. */
export function refusePasswordsInArgs(args: string[]): void {
  for (const a of args) {
    if (/^--[a-z-]*password(=|$)/.test(a) && a !== '--no-password') {
      throw new UsageError(
        `passwords are never taken from arguments (they end up in shell history and the process list); ` +
          `pipe it on standard input, type it when asked, or set ${SIGN_IN_PASSWORD_ENV} (sign-in) / ${NEW_PASSWORD_ENV} (new password)`,
      );
    }
  }
}
