// Launching the Chromium of the Chromium shell, apart from the shell itself (main/shell/chromium.ts) so
// the start command can start the browser before loading the rest of the app: Chromium boots in its own
// process while the main process loads the core's modules and opens the database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DeskError, messageOf } from '../errors.shared.js';

// Loaded with require, not import: the ESM loader lexes playwright-core's 3.6 MB CommonJS bundle for
// named exports first, which doubles its load time (about 0.4 s of every start).
const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');

/** Quiet, offline: no background traffic, no component updates, no first-run UI. */
export const CHROMIUM_FLAGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--metrics-recording-only',
  '--no-default-browser-check',
];

/** Chromium refuses to start as root with its sandbox on; only there is it turned off. */
export function needsNoSandbox(uid: number | undefined = process.getuid?.()): boolean {
  return uid === 0;
}

/** CHROMIUM_FLAGS plus --no-sandbox where Chromium will not start without it (running as root). */
export function chromiumFlags(uid: number | undefined = process.getuid?.()): string[] {
  return needsNoSandbox(uid) ? [...CHROMIUM_FLAGS, '--no-sandbox'] : [...CHROMIUM_FLAGS];
}

/** Temporary profile folders are named <prefix><owner pid>-<random>, so a later start can tell whose they are. */
export const PROFILE_PREFIX = 'merchant-desk-chromium-';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Removes the profile folders a crashed start left in `dir` (their owner pid is gone). A folder of a
 * running start, or one not named by us, is left alone. Returns the folders removed.
 */
export function removeStaleProfiles(dir: string = os.tmpdir(), alive: (pid: number) => boolean = isAlive): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = new RegExp(`^${PROFILE_PREFIX}(\\d+)-[^/]+$`).exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    const full = path.join(dir, name);
    try {
      if (!fs.lstatSync(full).isDirectory()) continue;
      fs.rmSync(full, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      removed.push(full);
    } catch {
      /* another start removed it first, or it is not ours to remove */
    }
  }
  return removed;
}

export interface LaunchOptions {
  headless?: boolean;
  /** Chromium's remote debugging on 127.0.0.1:<port>, so outside tools (tests) can attach over CDP. */
  cdpPort?: number;
  /** Default: CHROMIUM_PATH, else /usr/bin/chromium. */
  executablePath?: string;
  env?: NodeJS.ProcessEnv;
  /** One line for the person who started the app (stderr): running without the sandbox, an open CDP port. */
  warn?: (line: string) => void;
  /** Where a removed leftover profile folder is reported. */
  logger?: Logger;
}

/** A running Chromium without the app in it yet (see launchChromium). */
export interface LaunchedChromium {
  browser: Browser;
  context: BrowserContext;
  /** The window --app opened (headed), to be reused as the app's page. */
  firstPage: Page | undefined;
  headless: boolean;
  cdpPort: number | undefined;
  /** Closes the browser and removes its throwaway profile (a failure to remove it is logged). */
  close(logger?: Logger): Promise<void>;
}

export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [
    env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ].filter((x): x is string => !!x);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) {
    throw new DeskError(
      'unavailable',
      `no Chromium found (looked at ${candidates.join(', ')}); install chromium or set CHROMIUM_PATH`,
      {
        expose: true,
      },
    );
  }
  return found;
}

/**
 * Starts Chromium (a child process) without the app: the start command calls it before composing the
 * core, so the browser boots on the other core while the database and the sandbox open.
 */
export async function launchChromium(opts: LaunchOptions = {}): Promise<LaunchedChromium> {
  const headless = opts.headless ?? false;
  const warn = opts.warn ?? (() => {});
  for (const stale of removeStaleProfiles())
    opts.logger?.info({ profileDir: stale }, 'removed a Chromium profile folder left by an earlier start');
  const args = chromiumFlags();
  if (needsNoSandbox()) {
    warn(
      'merchant-desk: running as root, so Chromium runs without its sandbox (--no-sandbox); run as a normal user to keep it.',
    );
  }
  if (opts.cdpPort !== undefined) {
    // Loopback only; still, any program of any user on this machine can drive the window through it.
    args.push(`--remote-debugging-port=${opts.cdpPort}`, '--remote-debugging-address=127.0.0.1');
    warn(
      `merchant-desk: warning: Chromium's debugging port is open on 127.0.0.1:${opts.cdpPort}; any program on this machine can control the app through it. Use --cdp-port only for tests.`,
    );
  }
  const common = {
    executablePath: opts.executablePath ?? chromiumExecutable(opts.env),
    headless,
    // No "controlled by automated test software" bar on the user's window.
    ignoreDefaultArgs: ['--enable-automation'],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  };
  const contextOptions = {
    acceptDownloads: false,
    serviceWorkers: 'block' as const,
    permissions: [],
    bypassCSP: false,
  };
  let browser: Browser;
  let context: BrowserContext;
  let profileDir: string | null = null;
  let firstPage: Page | undefined;
  if (headless) {
    browser = await chromium.launch({ ...common, args });
    context = await browser.newContext({ ...contextOptions, viewport: { width: 1280, height: 800 } });
    firstPage = await context.newPage(); // the app's window, ready before the app is
  } else {
    // A window without browser chrome (--app): a throwaway profile, removed on close. The payment
    // window is still a separate context of the same browser, with an address bar showing its URL.
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
    context = await chromium.launchPersistentContext(profileDir, {
      ...common,
      ...contextOptions,
      viewport: null,
      args: [...args, '--test-type', '--app=data:text/html,<title>Merchant Desk</title>', '--window-size=1280,840'],
    });
    browser = context.browser()!;
    firstPage = context.pages()[0];
  }
  const removeProfile = (logger?: Logger) => {
    if (!profileDir) return;
    try {
      // Chromium may still be flushing the profile as it exits: retry rather than fail the shutdown.
      fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      if (logger) logger.warn({ err: e, profileDir }, 'could not remove the temporary Chromium profile');
      else process.emitWarning(`could not remove the temporary Chromium profile ${profileDir}: ${messageOf(e)}`);
    }
  };
  let closing: Promise<void> | null = null;
  return {
    browser,
    context,
    firstPage,
    headless,
    cdpPort: opts.cdpPort,
    close: (logger) =>
      (closing ??= (async () => {
        await (profileDir ? context.close() : browser.close()).catch(() => {});
        removeProfile(logger);
      })()),
  };
}
