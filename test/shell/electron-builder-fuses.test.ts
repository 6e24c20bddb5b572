// The packaged app's fuses: what electron-builder flips in the Electron binary before signing.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

// js-yaml comes with electron-builder; loaded by path so the test needs no dependency of its own.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

it('electron-builder.yml turns off run-as-node, NODE_OPTIONS and --inspect, and locks the app to its checked asar', () => {
  const config = yaml.load(fs.readFileSync(path.resolve(__dirname, '../../electron-builder.yml'), 'utf8')) as Record<
    string,
    unknown
  >;
  expect(config.electronFuses).toEqual(
    expect.objectContaining({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
    }),
  );
  // The asar must be built for the integrity fuse to mean anything.
  expect(config.asar).not.toBe(false);
});
