// Issue 39, item 5: a command that fails unexpectedly never prints an internal text (before, the import
// printed "merchant-desk: Maximum call stack size exceeded", and a damaged database "merchant-desk: file is
// not a database"). It says which command failed, what that left changed and where the log with the
// detail is; the detail is in that log. The real CLI entry (runCli, runCommand) in this process.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCommand } from '../../main/cli/index.js';
import { UsageError, type Command } from '../../main/cli/command.js';
import { openDataFolder } from '../../main/settings/data-folder.js';
import { dataPaths } from '../../main/settings/paths.js';
import { logFilePath } from '../../main/log/logger.js';
import { tempDir } from '../support/tmp.js';
import { captureIo } from '../support/cli-here.js';

/** What a person must never read: the error's own text, its class, a stack frame. */
const INTERNAL = /Maximum call stack|RangeError|TypeError|SqliteError|Error:|\bat .*\(.*:\d+:\d+\)|not a database$/m;

describe('a command that fails unexpectedly', () => {
  it('says which command failed, what it left changed and where the log is; the detail is only in the log', async () => {
    const dataDir = tempDir();
    const failing: Command = {
      name: 'import-callbacks',
      summary: '',
      usage: 'merchant-desk import-callbacks FILE',
      onFailure: 'the callbacks stored before it stopped are kept',
      run: () => {
        // What the 8,000-deep line did before it was refused (a fault injected: no command does it now).
        const deep = (n: number): number => (n === 0 ? 0 : deep(n - 1) + 1);
        return Promise.resolve(deep(1e7));
      },
    };
    const t = captureIo();
    const code = await runCommand(failing, [], { io: t.io, dataDir, env: process.env });
    expect(code).toBe(1);
    expect(t.err()).toBe(
      'merchant-desk: import-callbacks failed unexpectedly; the callbacks stored before it stopped are kept.\n' +
        `merchant-desk: The details are in ${logFilePath(dataDir)}.\n`,
    );
    expect(t.err()).not.toMatch(INTERNAL);
    const log = fs.readFileSync(logFilePath(dataDir), 'utf8');
    expect(log).toContain('Maximum call stack size exceeded');
    expect(log).toContain('"command":"import-callbacks"');
  });

  it('a damaged database: says so in words, that nothing was changed, and where the log is', async () => {
    const dataDir = tempDir();
    openDataFolder(dataDir).close();
    fs.writeFileSync(dataPaths(dataDir, 'embedded').db, Buffer.alloc(8192, 7));
    const t = captureIo();
    expect(await runCli(['--data-dir', dataDir, 'balances'], t.io)).toBe(1);
    expect(t.err()).toBe(
      'merchant-desk: balances failed: the database file is not a Merchant Desk database, or it is damaged; nothing was changed.\n' +
        `merchant-desk: The details are in ${logFilePath(dataDir)}.\n`,
    );
    expect(t.err()).not.toMatch(INTERNAL);
    expect(fs.readFileSync(logFilePath(dataDir), 'utf8')).toContain('file is not a database');
  });

  it('a refusal is still said in its own words, with the usage, and logs nothing', async () => {
    const dataDir = path.join(tempDir(), 'NEW');
    const refusing: Command = {
      name: 'export',
      summary: '',
      usage: 'merchant-desk export collections --out FILE',
      run: () => Promise.reject(new UsageError('--out FILE is required: where to write the CSV')),
    };
    const t = captureIo();
    expect(await runCommand(refusing, [], { io: t.io, dataDir, env: process.env })).toBe(2);
    expect(t.err()).toBe(
      'merchant-desk: --out FILE is required: where to write the CSV\nusage: merchant-desk export collections --out FILE\n',
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
