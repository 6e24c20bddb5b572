// npm run bench:startup: how long `node bin/merchant-desk.js start` takes until the window shows and
// until the Balances screen shows balance rows, on a first start (fresh data folder: the embedded
// sandbox makes its RSA-4096 key) and on a later start (same folder again). Starts the built app
// headless, attaches over CDP and prints ONE JSON object with the median of each (and every run).
// Options: --runs N (default 3), --keep (leave the temp folders).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.join(ROOT, 'bin', 'merchant-desk.js');
const log = (msg: string) => process.stderr.write(`[startup ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const { values: opt } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, keep: { type: 'boolean', default: false } },
  strict: true,
});
const runs = Number(opt.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number of at least 1');

interface StartTimes {
  /** spawn -> the `ready` line on stdout (the window is open and the embedded sandbox runs) */
  readyMs: number;
  /** spawn -> the Balances screen's heading is visible in the window */
  windowMs: number;
  /** spawn -> a wallet table of the Balances screen has its rows */
  balancesMs: number;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null) child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(t);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects over CDP once Chromium listens (retrying while it starts); gone() says why to give up. */
async function attach(url: string, gone: () => string | null): Promise<Browser> {
  for (;;) {
    const why = gone();
    if (why) throw new Error(why);
    try {
      return await chromium.connectOverCDP(url, { timeout: 5_000 });
    } catch {
      await pause(20);
    }
  }
}

async function appPage(browser: Browser): Promise<Page> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const page = browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith('http://merchant-desk.localhost/'));
    if (page) return page;
    await pause(20);
  }
  throw new Error('the app window was not found over CDP');
}

async function measure(dataDir: string): Promise<StartTimes> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, '--data-dir', dataDir, 'start', '--headless', '--cdp-port', String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The ready line waits for the embedded sandbox; the window does not: attach over CDP as soon as
  // Chromium listens, without waiting for the line.
  let readyMs = NaN;
  const rl = readline.createInterface({ input: child.stdout! });
  rl.on('line', (line) => {
    try {
      if ((JSON.parse(line) as { ready?: boolean }).ready) readyMs = performance.now() - t0;
    } catch {
      /* not the ready line */
    }
  });
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  try {
    const browser = await attach(`http://127.0.0.1:${port}`, () =>
      exitCode !== undefined ? `the app exited (${exitCode}):\n${err}` : null,
    );
    try {
      const page = await appPage(browser);
      await page.getByRole('heading', { level: 1, name: 'Balances' }).waitFor({ timeout: 60_000 });
      const windowMs = performance.now() - t0;
      await page.locator('table.wallets tbody tr').first().waitFor({ timeout: 60_000 });
      const balancesMs = performance.now() - t0;
      return { readyMs, windowMs, balancesMs };
    } finally {
      await browser.close().catch(() => {});
    }
  } finally {
    await stop(child, exited);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};
const summary = (xs: StartTimes[]) => ({
  ready_ms: median(xs.map((x) => x.readyMs)),
  window_ms: median(xs.map((x) => x.windowMs)),
  balances_ms: median(xs.map((x) => x.balancesMs)),
  runs: xs.map((x) => ({
    ready_ms: Math.round(x.readyMs),
    window_ms: Math.round(x.windowMs),
    balances_ms: Math.round(x.balancesMs),
  })),
});

if (!fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html')))
  throw new Error('the app is not built; run "npm run build"');
const loadStart = os.loadavg()[0]!;
const first: StartTimes[] = [];
const later: StartTimes[] = [];
const dirs: string[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-startup-'));
    dirs.push(dir);
    const f = await measure(dir);
    first.push(f);
    log(`first start ${i + 1}: window ${Math.round(f.windowMs)} ms, balances ${Math.round(f.balancesMs)} ms`);
    const l = await measure(dir);
    later.push(l);
    log(`later start ${i + 1}: window ${Math.round(l.windowMs)} ms, balances ${Math.round(l.balancesMs)} ms`);
  }
} finally {
  if (!opt.keep) for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
process.stdout.write(
  JSON.stringify(
    {
      first_start: summary(first),
      later_start: summary(later),
      cpus: os.cpus().length,
      load_avg_1m: { start: Math.round(loadStart * 100) / 100, end: Math.round(os.loadavg()[0]! * 100) / 100 },
      node: process.version,
    },
    null,
    2,
  ) + '\n',
);
