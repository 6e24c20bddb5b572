import { defineConfig } from '@playwright/test';

// End-to-end tests drive the Chromium shell (product code) on the embedded sandbox; each test
// starts its own app with its own data folder. Two cores: one worker keeps timings sane.
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: 'test-results',
});
