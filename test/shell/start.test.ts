// `merchant-desk start` without an Electron binary (the case on this machine): a one-line notice, then
// the Chromium shell; with no display it says what to do instead of failing inside Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { runCli } from '../../main/cli/index.js';
import { electronBinary } from '../../main/cli/commands/start.js';

function io() {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (d) => (o += String(d)));
  err.on('data', (d) => (e += String(d)));
  return { io: { stdout: out, stderr: err, stdin: new PassThrough() }, out: () => o, err: () => e };
}

it("finds the Electron binary through the package's path.txt, never by downloading it", () => {
  const pkg = tempDir();
  expect(electronBinary({}, pkg)).toBeNull(); // no path.txt: not installed
  fs.writeFileSync(path.join(pkg, 'path.txt'), 'electron');
  expect(electronBinary({}, pkg)).toBeNull(); // path.txt but no binary: not downloaded
  fs.mkdirSync(path.join(pkg, 'dist'));
  fs.writeFileSync(path.join(pkg, 'dist', 'electron'), '');
  expect(electronBinary({}, pkg)).toBe(path.join(pkg, 'dist', 'electron'));
});

it('has no Electron binary here, so start falls back to the Chromium shell with a one-line notice', async () => {
  expect(electronBinary()).toBeNull();
  const t = io();
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const code = await runCli(['--data-dir', tempDir()], t.io, env);
  const lines = t.err().trim().split('\n');
  expect(lines[0]).toBe('Electron is not installed here; opening Merchant Desk in the Chromium shell instead.');
  expect(t.err()).toMatch(/no display .* run with --headless/);
  expect(code).toBe(2);
});

it('checks its options', async () => {
  const t = io();
  expect(await runCli(['start', '--cdp-port', 'abc'], t.io)).toBe(2);
  expect(t.err()).toMatch(/--cdp-port must be a port number/);
});
