// Serves the built renderer to either shell (Chromium: page.route on the app origin; Electron: the
// app:// protocol). Only files inside the renderer folder; the HTML carries the CSP header.
import fs from 'node:fs';
import path from 'node:path';
import { APP_CSP } from './csp.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Serves a file of the built renderer for an app-origin URL; anything outside the folder is 404. */
export async function serveRendererFile(
  root: string,
  url: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const u = new URL(url);
  let rel: string;
  try {
    rel = decodeURIComponent(u.pathname);
  } catch {
    rel = '/';
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  const file = path.resolve(root, '.' + rel);
  const inside = file === root || file.startsWith(root + path.sep);
  let body: Buffer | null = null;
  if (inside) {
    try {
      body = await fs.promises.readFile(file);
    } catch {
      body = null;
    }
  }
  if (!body) return { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('not found') };
  const headers: Record<string, string> = {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (file.endsWith('.html')) {
    headers['content-security-policy'] = APP_CSP;
    headers['referrer-policy'] = 'no-referrer';
  }
  return { status: 200, headers, body };
}
