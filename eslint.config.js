import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { builtinModules } from 'node:module';
import house from './eslint-rules/house.js';

// Which code may run where. The renderer is a browser page with no Node: from main/ it may import only the
// IPC contract (main/ipc/contract/**) and the pure modules main shares with it, marked by a `.shared.ts`
// suffix (card input rules, money, reconciliation and security-log types). The suffix sits on the file,
// not in a folder, so a shared module stays beside the main code that uses it and the mark travels with
// a rename. A shared module imports only other shared modules and plain packages (zod): no node:*, no
// electron, no database, so nothing of main's environment is bundled into the page.
const electronOnlyInShell = { name: 'electron', message: 'only main/shell/electron*.ts imports electron' };
const nodeOnly = [
  electronOnlyInShell,
  { name: 'better-sqlite3', message: 'the database belongs to main; share data through the IPC contract' },
  ...builtinModules.map((name) => ({ name, message: 'shared and renderer code runs without Node' })),
];
const nodeBuiltinPrefix = { group: ['node:*'], message: 'shared and renderer code runs without Node' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'release/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Only the Electron shell may import electron (DESIGN.md: Shape).
    files: ['main/**/*.ts', 'sandbox/**/*.ts', 'renderer/**/*.{ts,tsx}'],
    ignores: ['main/shell/electron*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'only main/shell/electron*.ts imports electron' }] },
      ],
    },
  },
  {
    // A plain db.transaction() is deferred: a write in it fails at once with "database is locked" when
    // another process writes, instead of waiting busy_timeout. Use main/store/sqlite/transaction.ts.
    files: ['main/**/*.ts'],
    ignores: ['main/store/sqlite/transaction.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message:
            'use writeTransaction(db, fn) (BEGIN IMMEDIATE) or readTransaction(db, fn) from main/store/sqlite/transaction.ts',
        },
        {
          selector:
            "CallExpression[callee.property.name='exec'] > Literal[value=/^\\s*BEGIN(\\s+DEFERRED)?(\\s+TRANSACTION)?\\s*;?\\s*$/i]",
          message:
            'a deferred BEGIN does not wait for another writer: use writeTransaction(db, fn) from main/store/sqlite/transaction.ts',
        },
      ],
    },
  },
  {
    // The page's own code; renderer/vite.config.ts runs in Node and keeps the rule above.
    files: ['renderer/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnly,
          patterns: [
            nodeBuiltinPrefix,
            {
              regex: String.raw`(^|/)main/(?!ipc/contract/)(?!.*\.shared\.js$)`,
              message:
                'the renderer imports from main/ only the IPC contract (main/ipc/contract/**) and *.shared.js modules',
            },
          ],
        },
      ],
    },
  },
  {
    // Layering (house.json): collections must not import reconcile. The ledger (collections/ledger.ts)
    // reconciles through the hook the composition root wires (main/app/ledger.ts).
    files: ['main/collections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnlyInShell],
          patterns: [
            {
              regex: String.raw`(^|/)reconcile/`,
              message: 'collections must not import reconcile: the composition root wires reconciliation to the ledger',
            },
          ],
        },
      ],
    },
  },
  {
    // The sync engine in parts (issue 30): each part one job, no function over 100 lines.
    files: ['main/team/sync/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 100 }],
    },
  },
  {
    files: ['main/**/*.shared.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnly,
          patterns: [
            nodeBuiltinPrefix,
            {
              regex: String.raw`^\.\.?/(?!.*\.shared\.js$)`,
              message: 'a shared module imports only other *.shared.js modules (the renderer bundles it)',
            },
          ],
        },
      ],
    },
  },
  {
    // The contract is shared too. Its values (zod schemas) may come only from sibling contract files and
    // *.shared.js modules; a type may still come from a main module, since types are erased before the
    // renderer is bundled and several response types are declared beside the main code that builds them.
    files: ['main/ipc/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnly,
          patterns: [
            nodeBuiltinPrefix,
            {
              regex: String.raw`^\.\./(?!.*\.shared\.js$)`,
              allowTypeImports: true,
              message:
                'the IPC contract is shared with the renderer: import values only from contract files or *.shared.js modules',
            },
          ],
        },
      ],
    },
  },
  {
    // The house's layering (docs/house.json, eslint-rules/house.js): every "never" between two parts.
    files: ['main/**/*.ts', 'renderer/**/*.{ts,tsx}', 'preload/**/*.ts', 'sandbox/**/*.ts'],
    plugins: { house },
    rules: { 'house/never': 'error' },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs', 'bin/**/*.js'],
    rules: { 'no-console': 'off' },
  },
);
