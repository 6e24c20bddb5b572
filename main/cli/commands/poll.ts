// merchant-desk poll --once: one balances poll and one payment-options poll into the local cache, with
// the configured connection (same data folder and keychain as the app). Exit 1 when either fails.
import { activeProfileBeforeOpening, withWorkspace } from '../workspace.js';
import { parseCommandArgs, UsageError, type CliContext, type Command } from '../command.js';
import { createPoller, type PollKind } from '../../poller/poller.js';
import { iso } from './balances.js';

export const pollCommand: Command = {
  name: 'poll',
  summary: 'poll balances and payment options once into the local cache',
  usage: 'merchant-desk [--data-dir DIR] poll --once [--balances | --providers]',
  onFailure: 'what was polled before it stopped is kept',
  async run(args, ctx) {
    const { values } = parseCommandArgs({
      args,
      options: {
        once: { type: 'boolean', default: false },
        balances: { type: 'boolean', default: false },
        providers: { type: 'boolean', default: false },
      },
      strict: true,
    });
    if (!values.once)
      throw new UsageError('pass --once (the app itself polls continuously; this command polls one time)');
    const kind: PollKind | undefined =
      values.balances && !values.providers
        ? 'balances'
        : values.providers && !values.balances
          ? 'providers'
          : undefined;
    // Refused before the folder is opened (a new folder is not made for nothing).
    if (activeProfileBeforeOpening(ctx) === 'embedded') return embeddedRefusal(ctx);
    return withWorkspace(ctx, async ({ db, settings, clock, logger, connection }) => {
      if (settings.profile === 'embedded') return embeddedRefusal(ctx);
      const conn = await connection();
      if (!conn.ok) {
        ctx.io.stderr.write(`merchant-desk: ${conn.error.message}\n`);
        return 1;
      }
      const poller = createPoller({
        db,
        getClient: () => conn.client,
        clock,
        intervals: settings.pollIntervals,
        logger: logger(),
      });
      const status = await poller.refresh(kind);
      let failed = false;
      const kinds: PollKind[] = kind ? [kind] : ['balances', 'providers'];
      for (const k of kinds) {
        const s = status[k];
        if (s.lastError) {
          failed = true;
          ctx.io.stderr.write(`merchant-desk: ${k} poll failed (${s.lastError.kind}): ${s.lastError.message}\n`);
        } else {
          ctx.io.stdout.write(`${k}: ok at ${iso(s.lastSuccessAt)}\n`);
        }
      }
      return failed ? 1 : 0;
    });
  },
};

/** The embedded profile's sandbox and keys exist only while the app runs: nothing to poll here. */
function embeddedRefusal(ctx: CliContext): number {
  ctx.io.stderr.write(
    'merchant-desk: this data folder uses the embedded profile, whose sandbox and keys exist only while the app runs; ' +
      'start the app (merchant-desk start), or run "merchant-desk connect" for a sandbox or live service\n',
  );
  return 1;
}
