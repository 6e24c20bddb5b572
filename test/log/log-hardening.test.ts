// The real log file: rotation while the logger runs, CVV and expiry in free text, owner-only files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { createLogger, logFilePath } from '../../main/log/index.js';

describe('log rotation while running', () => {
  it('one running logger writing past the limit rotates: a .1 file appears and the current file is small', () => {
    const dir = tempDir();
    const file = logFilePath(dir);
    const log = createLogger({ dataDir: dir, rotate: { maxBytes: 4096, keep: 2 } });
    for (let i = 0; i < 200; i++) log.info({ i, note: 'x'.repeat(100) }, 'filling the log');
    log.info('the last line');
    const names = fs.readdirSync(path.dirname(file)).sort();
    expect(names).toEqual(['merchant-desk.log', 'merchant-desk.log.1', 'merchant-desk.log.2']);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(4096);
    expect(fs.readFileSync(file, 'utf8')).toContain('the last line');
    // Every generation is owner-only, including the files opened by rotation.
    if (process.platform !== 'win32') {
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      for (const n of names)
        expect([n, fs.statSync(path.join(path.dirname(file), n)).mode & 0o777]).toEqual([n, 0o600]);
    }
  });
});

describe('redaction of free text', () => {
  it('masks a CVV and an expiry typed into a message, in the written file', () => {
    const dir = tempDir();
    const log = createLogger({ dataDir: dir });
    log.info('card 4242424242424242 exp 12/29 cvv 123');
    log.info({ note: 'customer read out CVC: 9876, expiry=11/2030' }, 'phone order');
    log.warn('retrying with exp_month=07 exp_year=2031 and security code 456');
    log.info('card 4000 0000 0000 0002, 09/28 declined');
    const text = fs.readFileSync(logFilePath(dir), 'utf8');
    for (const leak of [
      '4242424242424242',
      '12/29',
      'cvv 123',
      '9876',
      '11/2030',
      'exp_month=07',
      '2031',
      '456',
      '09/28',
    ]) {
      expect(text, leak).not.toContain(leak);
    }
    expect(text).toContain('card [card number] exp [redacted] cvv [redacted]');
    expect(text).toContain('CVC: [redacted], expiry=[redacted]');
  });

  it('keeps ordinary numbers and dates that are not card data', () => {
    const dir = tempDir();
    const log = createLogger({ dataDir: dir });
    log.info('poll took 123 ms; 3 of 12/2026 reports; expected 12 rows');
    expect(fs.readFileSync(logFilePath(dir), 'utf8')).toContain(
      'poll took 123 ms; 3 of 12/2026 reports; expected 12 rows',
    );
  });
});
