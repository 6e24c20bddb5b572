import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**', 'dist/**'],
    // Native modules (better-sqlite3, the keyring) and real servers: separate processes per file.
    pool: 'forks',
    // A limit for a test that hangs, not a speed goal (speed is `npm run bench`): team tests that take 11-15 s
    // on a quiet machine passed 30 s on a loaded one (evidence.test in a CI rehearsal at load 10).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/support/setup.ts'],
    // Makes the folder through which team test files share one PostgreSQL server (started by the first
    // that needs it) and stops that server at the end of the run.
    globalSetup: ['test/support/postgres-global.ts'],
  },
});
