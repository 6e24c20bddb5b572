// One bench desk of `npm run bench:follow` (follow.ts): the built app (`bin/merchant-desk.js start
// --headless --cdp-port N`, the Chromium shell) on its own data folder and HOME/XDG folders, driven over
// CDP as a person would (lock screen, left bar), watched from outside only: its process tree's CPU and
// its main process's memory from /proc, and what it applied from its SQLite, opened read-only. Nothing
// here reaches into the app's code, so the bench runs unchanged whatever the sync and the notify path
// look like inside.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import Database from 'better-sqlite3';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../e2e/support/app.js';

export interface DeskOptions {
  /** The repository root (bin/merchant-desk.js, dist/). */
  root: string;
  /** A folder of this desk's own: data/, home/, xdg folders and desk.log go in it. */
  dir: string;
  login: string;
  password: string;
  /** The keychain service name of this desk (MERCHANT_DESK_KEYCHAIN_SERVICE), one per desk. */
  keychainService: string;
  /** Start the main process with the inspector on this port (127.0.0.1), for --profile. */
  inspectPort?: number | undefined;
}

/** CPU in clock ticks: the desk's main (Node) process, and everything under it (Chromium and its helpers). */
export interface TreeCpu {
  mainTicks: number;
  windowTicks: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux (getconf CLK_TCK)

export const ticksToSeconds = (ticks: number) => ticks / TICKS_PER_SECOND;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** utime, stime, cutime, cstime and the parent of every process, read once from /proc. */
function readProcs(): Map<number, { ppid: number; self: number; children: number }> {
  const procs = new Map<number, { ppid: number; self: number; children: number }>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    procs.set(Number(d), {
      ppid: Number(f[1]),
      self: Number(f[11]) + Number(f[12]),
      children: Number(f[13]) + Number(f[14]),
    });
  }
  return procs;
}

/** Every process under `rootPid` (its Chromium is started in a process group of its own). */
export function descendants(rootPid: number): number[] {
  const procs = readProcs();
  const out: number[] = [];
  const stack = [rootPid];
  while (stack.length) {
    const parent = stack.pop()!;
    for (const [pid, p] of procs)
      if (p.ppid === parent) {
        out.push(pid);
        stack.push(pid);
      }
  }
  return out;
}

/**
 * The desk's CPU so far: its main process's own utime+stime; the window is every descendant (Chromium's
 * browser, renderer, GPU/utility processes), each with the time of its own children that ended (cutime
 * and cstime), plus the main process's ended children. A process that ended between two readings is
 * counted in its parent's cutime, so differences of two readings are the work done in between.
 */
export function treeCpu(rootPid: number): TreeCpu {
  const procs = readProcs();
  const root = procs.get(rootPid);
  if (!root) return { mainTicks: 0, windowTicks: 0 };
  const kids = new Map<number, number[]>();
  for (const [pid, p] of procs) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), pid]);
  let windowTicks = root.children;
  const stack = [...(kids.get(rootPid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    const p = procs.get(pid)!;
    windowTicks += p.self + p.children;
    stack.push(...(kids.get(pid) ?? []));
  }
  return { mainTicks: root.self, windowTicks };
}

/** Resident memory of one process, and its peak so far (VmHWM), in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * What one desk applied, read from its SQLite read-only: callback events newer than the last one seen,
 * each with the time this poll first saw it (so a lag measured with it is late by up to one poll).
 */
export class AppliedWatch {
  private db: Database.Database | null = null;
  private lastId = 0;
  /** merchant_reference -> when a callback for it was first seen on this desk (Date.now()). */
  readonly seen = new Map<string, number>();

  constructor(private readonly file: string) {}

  poll(now = Date.now()): number {
    if (!this.db) {
      if (!fs.existsSync(this.file)) return 0;
      this.db = new Database(this.file, { readonly: true, fileMustExist: true });
    }
    const rows = this.db
      .prepare(
        `SELECT id, merchant_reference AS ref FROM collection_events WHERE id > ? AND source = 'callback' ORDER BY id`,
      )
      .all(this.lastId) as { id: number; ref: string }[];
    for (const r of rows) if (!this.seen.has(r.ref)) this.seen.set(r.ref, now);
    if (rows.length) this.lastId = rows[rows.length - 1]!.id;
    return rows.length;
  }

  /** Collections whose reference starts with `prefix` (the seeded intents it knows of). */
  collections(prefix: string): number {
    this.poll();
    if (!this.db) return 0;
    return this.db
      .prepare(`SELECT count(*) FROM collections WHERE merchant_reference >= ? AND merchant_reference < ?`)
      .pluck()
      .get(prefix, prefix + '\uffff') as number;
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
}

export class Desk {
  readonly dataDir: string;
  readonly dbFile: string;
  readonly watch: AppliedWatch;
  child: ChildProcess | null = null;
  page: Page | null = null;
  private browser: Browser | null = null;
  private exited: Promise<number | null> | null = null;

  constructor(readonly o: DeskOptions) {
    this.dataDir = path.join(o.dir, 'data');
    this.dbFile = path.join(this.dataDir, 'profiles', 'team', 'merchant-desk.sqlite');
    this.watch = new AppliedWatch(this.dbFile);
  }

  get login(): string {
    return this.o.login;
  }

  get pid(): number {
    return this.child!.pid!;
  }

  /** The environment of this desk's own: HOME and the XDG folders in its folder, its keychain service name. */
  env(): NodeJS.ProcessEnv {
    const home = path.join(this.o.dir, 'home');
    const xdg = {
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
    };
    for (const d of [home, ...Object.values(xdg)]) fs.mkdirSync(d, { recursive: true });
    return { ...process.env, HOME: home, ...xdg, MERCHANT_DESK_KEYCHAIN_SERVICE: this.o.keychainService };
  }

  /** Starts the app and attaches over CDP; returns when the window is there (locked: a team desk starts so). */
  async start(): Promise<void> {
    const port = await freePort();
    const log = fs.openSync(path.join(this.o.dir, 'desk.log'), 'a');
    const child = spawn(
      process.execPath,
      [
        ...(this.o.inspectPort ? [`--inspect=127.0.0.1:${this.o.inspectPort}`] : []),
        path.join(this.o.root, 'bin', 'merchant-desk.js'),
        '--data-dir',
        this.dataDir,
        'start',
        '--headless',
        '--cdp-port',
        String(port),
      ],
      { cwd: this.o.root, env: this.env(), stdio: ['ignore', 'pipe', log] },
    );
    fs.closeSync(log);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const cdpUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.login}'s desk did not start within 120 s (see ${this.o.dir}/desk.log)`)),
        120_000,
      );
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const v = JSON.parse(line) as { ready?: boolean; cdp_url?: string };
          if (v.ready && v.cdp_url) {
            clearTimeout(timer);
            resolve(v.cdp_url);
          }
        } catch {
          /* not the ready line */
        }
      });
      void this.exited!.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.login}'s desk exited (${code}) before it was ready (see ${this.o.dir}/desk.log)`));
      });
    });
    this.browser = await chromium.connectOverCDP(cdpUrl);
    const page = this.browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith('http://merchant-desk.localhost/'));
    if (!page) throw new Error(`${this.login}'s app window was not found over CDP`);
    this.page = page;
  }

  /** Signs in at the lock screen as a person does; returns when the left bar shows (the session is open). */
  async signIn(): Promise<void> {
    const page = this.page!;
    await page.getByRole('heading', { level: 1, name: `Sign in as ${this.login}` }).waitFor({ timeout: 120_000 });
    await page.getByLabel('Password', { exact: true }).fill(this.o.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 120_000 });
  }

  /** Opens a screen through the left bar; returns when its heading shows. */
  async open(name: string): Promise<void> {
    const page = this.page!;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor({ timeout: 120_000 });
  }

  /** SIGTERM; the seconds until it exited (killed after `killAfterMs`: then null seconds). */
  async stop(killAfterMs = 20_000): Promise<{ seconds: number | null; code: number | null }> {
    if (!this.child) return { seconds: 0, code: null };
    await this.browser?.close().catch(() => {});
    this.browser = null;
    this.page = null;
    const t0 = performance.now();
    let killed = false;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    const tree = descendants(this.child.pid!);
    const timer = setTimeout(() => {
      killed = true;
      this.child?.kill('SIGKILL');
      for (const pid of tree)
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
    }, killAfterMs);
    const code = await this.exited!;
    clearTimeout(timer);
    const seconds = killed ? null : (performance.now() - t0) / 1000;
    this.child = null;
    await pause(0);
    return { seconds, code };
  }
}
