// merchant-desk serve: the team's headless callback receiver and poller (main/serve/). Runs until
// SIGTERM or SIGINT, then stops taking requests, commits what is in flight, closes the pool, exits 0.
// Secrets come from the environment or credential files only (main/serve/config.ts).
import type { Command } from '../command.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: "the team's callback receiver and poller, for a server (keys from the environment or credential files)",
  usage:
    'merchant-desk [--data-dir DIR] serve --database postgres://LOGIN@HOST:PORT/DB [--listen HOST:PORT] ' +
    '[--sslmode disable|require|verify-ca|verify-full] [--ssl-ca CA.pem] ' +
    '[--service-url URL | --no-poll] [--credentials DIR] [--trust-proxy ADDRESSES] ' +
    '[--journal-days N] [--restore-wait-seconds S] [--record-check-seconds S] [--rate-limit N] ' +
    '[--verify-threads N] [--poll-lease-seconds S]',
  onFailure: 'every callback answered 2xx before it stopped is stored',
  logsTo: 'standard error',
  async run(args, ctx) {
    // Loaded on use: the other commands start without the PostgreSQL driver and the server.
    const { runServe } = await import('./serve-run.js');
    return runServe(args, ctx);
  },
};
