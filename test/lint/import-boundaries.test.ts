// The lint rules that keep the renderer to the IPC contract and the *.shared.ts modules, and keep those
// modules free of Node, exercised through ESLint's Node API on snippets placed where such files live.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

async function restrictedImports(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const screen = 'renderer/src/screens/Probe/index.tsx';

describe('renderer imports from main/', () => {
  it('refuses a main-only module such as the database', async () => {
    const errors = await restrictedImports(
      `import { openDb } from '../../../../main/store/sqlite/connection.js';\nexport { openDb };\n`,
      screen,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/only the IPC contract/);
  });

  it('refuses a type from a main-only module as well', async () => {
    const errors = await restrictedImports(
      `import type { Db } from '../../../../main/store/sqlite/connection.js';\nexport type { Db };\n`,
      screen,
    );
    expect(errors).toHaveLength(1);
  });

  it('accepts the IPC contract', async () => {
    const code = `import type { ChannelName } from '../../../../main/ipc/contract/index.js';\nexport type { ChannelName };\n`;
    expect(await restrictedImports(code, screen)).toEqual([]);
  });

  it('accepts a shared module', async () => {
    const code = `import { formatMinor } from '../../../../main/money/amount.shared.js';\nexport { formatMinor };\n`;
    expect(await restrictedImports(code, screen)).toEqual([]);
  });

  it('refuses Node built-ins', async () => {
    const code = `import fs from 'node:fs';\nimport os from 'os';\nexport { fs, os };\n`;
    expect(await restrictedImports(code, screen)).toHaveLength(2);
  });
});

describe('shared modules', () => {
  const shared = 'main/money/probe.shared.ts';

  it('import other shared modules', async () => {
    const code = `import { currencyExponent } from './currency.shared.js';\nexport { currencyExponent };\n`;
    expect(await restrictedImports(code, shared)).toEqual([]);
  });

  it('import nothing main-only, no Node and no database', async () => {
    const code = [
      `import { writeTransaction } from '../store/transaction.js';`,
      `import crypto from 'node:crypto';`,
      `import Database from 'better-sqlite3';`,
      `export { writeTransaction, crypto, Database };`,
      '',
    ].join('\n');
    expect(await restrictedImports(code, shared)).toHaveLength(3);
  });
});

describe('IPC contract', () => {
  const contract = 'main/ipc/contract/probe.ts';

  it('imports values from sibling contract files and shared modules', async () => {
    const code = `import { channel } from './define.js';\nimport { cardFormSchema } from '../../collections/card-input.shared.js';\nexport { channel, cardFormSchema };\n`;
    expect(await restrictedImports(code, contract)).toEqual([]);
  });

  it('refuses a value from a main-only module', async () => {
    const code = `import { writeTransaction } from '../../store/transaction.js';\nexport { writeTransaction };\n`;
    expect(await restrictedImports(code, contract)).toHaveLength(1);
  });
});

describe('layering', () => {
  it('collections do not import reconcile: the composition root wires reconciliation to the ledger', async () => {
    const code = `import { reconcileAfterAppend } from '../reconcile/incremental.js';\nexport { reconcileAfterAppend };\n`;
    const errors = await restrictedImports(code, 'main/collections/probe.ts');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/collections must not import reconcile/);
    const electron = await restrictedImports(
      `import { app } from 'electron';\nexport { app };\n`,
      'main/collections/probe.ts',
    );
    expect(electron).toHaveLength(1);
  });

  it('the composition root may wire it', async () => {
    const code = `import { reconcileAfterAppend } from '../reconcile/incremental.js';\nexport { reconcileAfterAppend };\n`;
    expect(await restrictedImports(code, 'main/app/probe.ts')).toEqual([]);
  });
});
