// Fuzz of the command line's arguments (issue 39, item 3): the CLI's entry (runCli) in this process, on a
// data folder in use and on one that does not exist, with the real keychain (scripts/with-keyring.sh) and a
// real SQLite file. Random argument lists made of every command's names, flags and values, hostile values
// among them (empty, long, control characters, another flag, `=` forms, a bare `--`), and random standard
// input. Each asserts: no throw, an exit code of 0, 1 or 2, no internal text on either stream, a refused
// command (exit 2) changes neither folder, no unhandled rejection, and a valid command afterwards answers as
// it did before.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-here.js';
import { folderState } from '../support/folder-state.js';
import { openProfileDatabase, writeActiveProfile } from '../../main/settings/profile-database.js';
import { updateSettings } from '../../main/settings/settings.js';
import { fuzzBudget, INTERNAL_TEXT, unhandledRejections } from './budget.js';
import { fileTempDir } from '../support/tmp.js';

const budget = fuzzBudget('cli', 1);
const rejections = unhandledRejections();
let root: string;
let inUse: string;
let files: string;

beforeAll(() => {
  root = fileTempDir('md-fuzz-cli-');
  inUse = path.join(root, 'in-use');
  files = path.join(root, 'files');
  fs.mkdirSync(files);
  const db = openProfileDatabase(inUse, 'sandbox');
  updateSettings(db, { profile: 'sandbox', baseUrl: 'http://127.0.0.1:1' }); // nothing listens there
  db.close();
  writeActiveProfile(inUse, 'sandbox');
  const { publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(path.join(files, 'service.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
  fs.writeFileSync(path.join(files, 'callbacks.jsonl'), '{"headers": {}, "body": {}}\n[[[[[[\n');
  fs.writeFileSync(path.join(files, 'empty.jsonl'), '');
});
afterAll(() => {
  rejections.stop();
  expect(rejections.list).toEqual([]);
});

async function cli(args: string[], stdin: string) {
  const r = await runCliHere(args, stdin);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

// Commands that run until stopped (start, sandbox, serve) or reach a team database (team) are always given
// an option they do not know, so their parsing is fuzzed and they never start.
const LONG_RUNNING = new Set(['start', 'sandbox', 'serve', 'team']);
const COMMANDS = [
  'connect',
  'balances',
  'providers',
  'poll',
  'import-callbacks',
  'reconcile',
  'export',
  'help',
  ...LONG_RUNNING,
];
const FLAGS = [
  '--profile',
  '--base-url',
  '--public-key',
  '--service-key',
  '--secret-key-stdin',
  '--signing-key-stdin',
  '--no-verify',
  '--database',
  '--login',
  '--remember',
  '--sslmode',
  '--ssl-ca',
  '--currency',
  '--type',
  '--method',
  '--active',
  '--json',
  '--once',
  '--balances',
  '--providers',
  '--full',
  '--limit',
  '--from',
  '--to',
  '--out',
  '--bom',
  '--port',
  '--headless',
  '--secret-key',
  '--data-dir',
  '--help',
];
const word = fc.oneof(
  fc.constantFrom(...COMMANDS, ...FLAGS),
  fc.constantFrom(
    'sandbox',
    'live',
    'team',
    'embedded',
    'UGX',
    'usd',
    'COLLECTION',
    'CARD',
    '0',
    '-1',
    '1000',
    '1e9',
    '2026-01-01',
    '2026-13-45',
    'balances',
    'collections',
    '--',
    '=',
    '',
  ),
  fc.constantFrom(
    'https://sandbox.example.com',
    'ftp://x',
    'http://127.0.0.1:1',
    'postgres://127.0.0.1:1/team',
    'postgres://u:pw@h/db',
  ),
  fc
    .constantFrom('service.pem', 'callbacks.jsonl', 'empty.jsonl', 'missing.jsonl', 'out.csv', 'no/such/out.csv')
    .map((f) => `FILE:${f}`),
  fc.string({ maxLength: 30 }),
  fc.string({ maxLength: 3_000, unit: 'binary' }),
  fc.tuple(fc.constantFrom(...FLAGS), fc.string({ maxLength: 20 })).map(([f, v]) => `${f}=${v}`),
);

describe('fuzz: the command line', () => {
  it(
    'random arguments: an exit code of 0, 1 or 2, plain words, and a refusal changes no data folder',
    async () => {
      const baseline = await cli(['--data-dir', inUse, 'balances', '--json'], '');
      expect(baseline.code).toBe(0);
      let n = 0;
      await budget.check(
        'arguments',
        fc.asyncProperty(
          fc.constantFrom(...COMMANDS),
          fc.array(word, { maxLength: 8 }),
          fc.boolean(),
          fc.string({ maxLength: 200 }),
          async (command, words, newFolder, stdin) => {
            const folder = newFolder ? path.join(root, `new-${++n}`) : inUse;
            const args = words.map((w) => (w.startsWith('FILE:') ? path.join(files, w.slice(5)) : w));
            if (LONG_RUNNING.has(command)) args.push('--not-an-option-of-any-command');
            // Whatever --data-dir the words hold, the folder under test comes last and wins.
            const argv = [command, ...args.filter((a) => a !== '--'), '--data-dir', folder];
            const before = folderState(folder);
            const r = await cli(argv, stdin);
            expect([0, 1, 2]).toContain(r.code);
            expect(r.err).not.toMatch(INTERNAL_TEXT);
            expect(r.out).not.toMatch(INTERNAL_TEXT);
            if (r.code === 2) {
              expect(r.err).toMatch(/^merchant-desk: \S/);
              expect(folderState(folder)).toEqual(before);
            }
            if (r.code !== 0) expect(r.err).not.toBe('');
          },
        ),
        60,
      );
      // The folder in use answers as before (a refused or read-only command changed nothing it shows).
      const after = await cli(['--data-dir', inUse, 'balances', '--json'], '');
      expect(after).toEqual(baseline);
    },
    budget.timeoutMs,
  );
});
