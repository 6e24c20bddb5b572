import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The renderer is served from a custom protocol (Electron app://) or a fixed app origin (Chromium shell),
// never file://, so paths are relative and nothing is fetched from elsewhere.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    // One CSS file and module scripts only: the CSP allows 'self' and nothing inline.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
  },
});
