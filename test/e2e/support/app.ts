// e2e helpers (reusable by every screen's tests): start the real app (Chromium shell, headless) as a
// child process on its own data folder, attach over CDP, stop it, and drive the embedded sandbox's
// test controls over HTTP.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** What `merchant-desk start` prints on stdout once the window is up. */
export interface ReadyLine {
  ready: true;
  shell: string;
  data_dir: string;
  cdp_url: string;
  sandbox_url: string | null;
  callback_url: string | null;
}

export interface RunningApp {
  page: Page;
  browser: Browser;
  dataDir: string;
  ready: ReadyLine;
  /** The embedded sandbox's test controls (null on other profiles). */
  sandbox: SandboxControl | null;
  /** Everything the app wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** SIGTERM, wait for a clean exit; returns the exit code. */
  stop(): Promise<number | null>;
}

let built = false;

function newestMtime(dir: string): number {
  let max = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return max;
}

/** Builds dist/renderer when it is missing or older than renderer/ (once per worker). */
export function ensureRendererBuilt(): void {
  if (built) return;
  const index = path.join(ROOT, 'dist/renderer/index.html');
  const src = Math.max(
    newestMtime(path.join(ROOT, 'renderer/src')),
    fs.statSync(path.join(ROOT, 'renderer/index.html')).mtimeMs,
  );
  if (!fs.existsSync(index) || fs.statSync(index).mtimeMs < src) {
    const r = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        'renderer/vite.config.ts',
        '--logLevel',
        'warn',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`renderer build failed:\n${r.stdout}\n${r.stderr}`);
  }
  built = true;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export function newDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-'));
}

/** Starts `merchant-desk --data-dir DIR start --headless --cdp-port N` from the TypeScript sources. */
export async function startApp(
  opts: { dataDir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunningApp> {
  ensureRendererBuilt();
  const dataDir = opts.dataDir ?? newDataDir();
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'main/cli/main.ts', '--data-dir', dataDir, 'start', '--headless', '--cdp-port', String(port)],
    { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the app did not start within ${opts.timeoutMs ?? 60_000} ms:\n${err}`)),
      opts.timeoutMs ?? 60_000,
    );
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      try {
        const v = JSON.parse(line) as ReadyLine;
        if (v.ready) {
          clearTimeout(timer);
          resolve(v);
        }
      } catch {
        /* not the ready line */
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code}) before it was ready:\n${err}`));
    });
  });
  const browser = await chromium.connectOverCDP(ready.cdp_url);
  const page = browser
    .contexts()
    .flatMap((c) => c.pages())
    .find((p) => p.url().startsWith('http://merchant-desk.localhost/'));
  if (!page) throw new Error('the app window was not found over CDP');
  let stopped: Promise<number | null> | null = null;
  return {
    page,
    browser,
    dataDir,
    ready,
    sandbox: ready.sandbox_url ? new SandboxControl(ready.sandbox_url) : null,
    stderr: () => err,
    stop: () =>
      (stopped ??= (async () => {
        await browser.close().catch(() => {});
        if (child.exitCode === null) child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const code = await exited;
        clearTimeout(t);
        // A desk that does not stop cleanly says why: the spec only sees its exit code.
        if (code !== 0) process.stderr.write(`the app (${dataDir}) exited ${code} on SIGTERM:\n${err.slice(-4000)}\n`);
        return code;
      })()),
  };
}

/** The sandbox's /__sandbox test controls over HTTP (see the sandbox surface). */
export class SandboxControl {
  constructor(readonly baseUrl: string) {}

  async #call(method: string, p: string, body?: unknown): Promise<unknown> {
    const r = await fetch(`${this.baseUrl}/__sandbox${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`sandbox ${method} ${p} -> ${r.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  }

  state() {
    return this.#call('GET', '/state');
  }
  /** e.g. { route: 'balances', kind: '503', times: 0 } (times 0 = until cleared). */
  fault(spec: {
    route: string;
    kind: string;
    times?: number;
    latency_ms?: number;
    retry_after_s?: number;
    http_status?: number;
    body?: string;
    currency?: string;
  }) {
    return this.#call('POST', '/faults', spec);
  }
  clearFaults() {
    return this.#call('DELETE', '/faults');
  }
  /** e.g. { strict_options: true }: the payment options refused without currency and transaction_type. */
  config(cfg: { callback_url?: string | null; rate_limit_per_s?: number; strict_options?: boolean }) {
    return this.#call('POST', '/config', cfg);
  }
  advanceClock(ms: number) {
    return this.#call('POST', '/clock/advance', { ms });
  }
  complete(merchantReference: string, outcome: 'approve' | 'decline' | 'insufficient_funds' | 'cancel') {
    return this.#call('POST', `/collections/${encodeURIComponent(merchantReference)}/complete`, { outcome });
  }
  collection(merchantReference: string) {
    return this.#call('GET', `/collections/${encodeURIComponent(merchantReference)}`);
  }
  callbackLog() {
    return this.#call('GET', '/callbacks/log');
  }
}

/** Navigates with the app's own navigation (a link in the left bar). */
export async function openScreen(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

export function screenshotPath(name: string): string {
  const dir = path.join(ROOT, 'test-results', 'screens');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

/**
 * A screenshot for the README (docs/screenshots/NAME.png), taken at 1280x800 so the files stay small and
 * show the app at a common laptop size.
 */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
  if (before) await page.setViewportSize(before);
}
