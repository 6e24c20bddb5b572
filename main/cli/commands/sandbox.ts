// merchant-desk sandbox: runs the local stand-in for the payments service until SIGINT/SIGTERM.
// Prints one JSON line (base_url, keys, service_public_key_path) and writes it to DIR/sandbox.json.
import path from 'node:path';
import { parseCommandArgs, UsageError, type Command } from '../command.js';
import { sandboxInfo, startSandbox } from '../../../sandbox/index.js';

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'run the local payments sandbox (test cards, callbacks, /__sandbox controls)',
  usage: 'merchant-desk sandbox [--port N] [--state-dir DIR] [--callback-url URL] [--host 127.0.0.1] [--time-scale N]',
  onFailure: "the sandbox's state is as it last saved it",
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: {
        port: { type: 'string', default: '0' },
        'state-dir': { type: 'string' },
        'callback-url': { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        'time-scale': { type: 'string', default: '1' },
      },
      allowPositionals: false,
      strict: true,
    });
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) {
      throw new UsageError(`--port must be a port number from 0 to 65535 (0 picks a free one), got "${values.port}"`);
    }
    const timeScale = Number(values['time-scale']);
    if (!(timeScale > 0)) throw new UsageError(`--time-scale must be a number above 0, got "${values['time-scale']}"`);
    const callbackUrl = values['callback-url'];
    if (callbackUrl !== undefined) {
      let ok: boolean;
      try {
        ok = ['http:', 'https:'].includes(new URL(callbackUrl).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new UsageError(`--callback-url must be an http or https URL, got "${callbackUrl}"`);
    }
    const stateDir = path.resolve(values['state-dir'] ?? path.join(ctx.dataDir, 'sandbox'));

    const sb = await startSandbox({ stateDir, port, host: values.host, callbackUrl, timeScale });
    ctx.io.stdout.write(JSON.stringify(sandboxInfo(sb)) + '\n');
    ctx.io.stderr.write(
      `sandbox listening on ${sb.baseUrl} (state in ${stateDir}, pid ${process.pid}); Ctrl+C stops it\n`,
    );

    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      const on = (s: NodeJS.Signals) => {
        process.off('SIGINT', on);
        process.off('SIGTERM', on);
        resolve(s);
      };
      process.on('SIGINT', on);
      process.on('SIGTERM', on);
    });
    ctx.io.stderr.write(`sandbox: ${signal}, stopping\n`);
    await sb.close();
    return 0;
  },
};
