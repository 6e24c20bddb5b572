// `merchant-desk [--data-dir DIR] start [--headless] [--cdp-port N] [--chromium]` — the default command.
// Electron when its binary is present; otherwise a one-line notice and the Chromium shell.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { appRoot } from '../../app/paths.js';
import { closeWithin, leaveSoon, onStopSignals } from '../../app/shutdown.js';

/**
 * The Electron binary, or null when the electron package has no downloaded binary (or is absent).
 * Reads the package's path.txt itself: require('electron') would try to DOWNLOAD a missing binary.
 */
export function electronBinary(env: NodeJS.ProcessEnv = process.env, packageDir?: string): string | null {
  try {
    const dir = packageDir ?? path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = path.join(dir, 'path.txt');
    const rel = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : '';
    if (!rel) return null;
    const full = env.ELECTRON_OVERRIDE_DIST_PATH
      ? path.join(env.ELECTRON_OVERRIDE_DIST_PATH, rel)
      : path.join(dir, 'dist', rel);
    return fs.existsSync(full) ? full : null;
  } catch {
    return null;
  }
}

export const startCommand: Command = {
  name: 'start',
  summary: 'open the app (Electron if present, else the Chromium shell); the default command',
  usage: 'merchant-desk [--data-dir DIR] start [--headless] [--cdp-port N] [--chromium]',
  onFailure: 'what was stored before it stopped is kept',
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: {
        headless: { type: 'boolean', default: false },
        'cdp-port': { type: 'string' },
        chromium: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    let cdpPort: number | undefined;
    if (values['cdp-port'] !== undefined) {
      cdpPort = Number(values['cdp-port']);
      if (!Number.isInteger(cdpPort) || cdpPort < 1 || cdpPort > 65535)
        throw new UsageError('--cdp-port must be a port number from 1 to 65535');
    }
    const { io, dataDir } = ctx;

    const electron = values.headless || values.chromium || cdpPort !== undefined ? null : electronBinary(ctx.env);
    if (electron) {
      const main = path.join(appRoot(), 'dist', 'main', 'shell', 'electron-main.js');
      const child = spawn(electron, [main, '--data-dir', dataDir], { stdio: 'inherit', env: ctx.env });
      return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
    }
    if (!values.headless && !values.chromium && cdpPort === undefined) {
      io.stderr.write('Electron is not installed here; opening Merchant Desk in the Chromium shell instead.\n');
    }
    if (!values.headless && process.platform === 'linux' && !ctx.env.DISPLAY && !ctx.env.WAYLAND_DISPLAY) {
      throw new UsageError(
        'there is no display to open a window on (DISPLAY is not set); run with --headless --cdp-port N to drive it remotely',
      );
    }

    // Loaded only now: the CLI's other commands need neither the core nor playwright.
    // Chromium boots (its own process) while the app's modules load and the core is composed; the window
    // opens on the cached data while the embedded sandbox starts in the background.
    const { launchChromium } = await import('../../shell/chromium-launch.js');
    const launching = launchChromium({
      headless: values.headless,
      ...(cdpPort !== undefined ? { cdpPort } : {}),
      env: ctx.env,
      warn: (line) => io.stderr.write(line + '\n'),
    });
    launching.catch(() => {}); // awaited below; a failure is reported there
    const [{ startChromiumShell }, { composeCore }] = await Promise.all([
      import('../../shell/chromium.js'),
      import('../../app/core.js'),
    ]);
    // The payment window lives in the browser, which the shell takes over once the core exists.
    let shell: Awaited<ReturnType<typeof startChromiumShell>> | undefined;
    let core;
    try {
      core = await composeCore({
        dataDir,
        shell: 'chromium',
        background: true,
        paymentWindow: () => shell?.paymentWindow() ?? null,
      });
    } catch (e) {
      await launching.then((l) => l.close()).catch(() => {});
      throw e;
    }
    try {
      shell = await startChromiumShell({ core, launched: await launching });
    } catch (e) {
      await launching.then((l) => l.close(core.logger)).catch(() => {});
      await core.close();
      throw e;
    }
    // The one way a desk stops (app/shutdown.ts): a signal or the window closing; a second signal leaves at once.
    const stop = onStopSignals();
    // The ready line promises a running sandbox (tools attach to its test controls): it waits for the
    // start, the window does not.
    await Promise.race([core.ready(), shell.closed, stop.requested]);
    io.stdout.write(
      JSON.stringify({
        ready: true,
        shell: 'chromium',
        data_dir: core.dataDir,
        cdp_url: shell.cdpUrl,
        sandbox_url: core.embedded()?.baseUrl ?? null,
        callback_url: core.callbackReceiverUrl(),
      }) + '\n',
    );
    await Promise.race([shell.closed, stop.requested]);
    // The window and the core close together: a team desk's sync stops after the slice it is applying.
    const opened = shell;
    const clean = await closeWithin(async () => {
      await Promise.all([opened.close(), core.close()]);
    }, core.logger);
    stop.dispose();
    // A close that had to be cut short says so in the exit code (what was written is committed anyway).
    leaveSoon(clean ? 0 : 1);
    return clean ? 0 : 1;
  },
};
