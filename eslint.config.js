import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

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
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'only main/shell/electron*.ts imports electron' }] }] },
  },
  {
    // A plain db.transaction() is deferred: a write in it fails at once with "database is locked" when
    // another process writes, instead of waiting busy_timeout. Use main/store/transaction.ts.
    files: ['main/**/*.ts'],
    ignores: ['main/store/transaction.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'use writeTransaction(db, fn) (BEGIN IMMEDIATE) or readTransaction(db, fn) from main/store/transaction.ts',
        },
        {
          selector: "CallExpression[callee.property.name='exec'] > Literal[value=/^\\s*BEGIN(\\s+DEFERRED)?(\\s+TRANSACTION)?\\s*;?\\s*$/i]",
          message: 'a deferred BEGIN does not wait for another writer: use writeTransaction(db, fn) from main/store/transaction.ts',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs', 'bin/**/*.js'],
    rules: { 'no-console': 'off' },
  },
);
