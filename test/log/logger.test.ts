import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { createLogger, logFilePath } from '../../main/log/index.js';

const CARD = '4242424242424242';
const SECRET = 'sk_test_9f8e7d6c5b4a39281706';

describe('logger', () => {
  it('writes to <dataDir>/logs and never writes a card number, CVV or key', () => {
    const dir = tempDir();
    const log = createLogger({ dataDir: dir, level: 'debug' });
    log.info({ card: { card_no: CARD, cvv: '123', exp_month: '12' } }, 'charging');
    log.info({ request: { headers: { 'secret-key': SECRET, 'public-key': 'pk_live_abcdef123456' } } }, 'request');
    log.info({ secretKey: SECRET, nested: { deeper: { signing_key: 'sig_0011223344556677', cardNumber: CARD } } });
    log.info(`customer typed ${CARD.replace(/(\d{4})/g, '$1 ').trim()} into the notes`);
    const err = new Error(`service said: bad card ${CARD}`);
    (err as Error & { cause: unknown }).cause = { secretKey: SECRET };
    log.error({ err }, 'failed');
    log.child({ keys: { secretKey: SECRET } }).warn('child');
    log.info({ card_brand: 'visa', card_last4: '4242', amountMinor: 4_242_424_242_424_242 % 1000 }, 'safe fields stay');
    const text = fs.readFileSync(logFilePath(dir), 'utf8');
    expect(text).not.toContain(CARD);
    expect(text).not.toContain('4242 4242 4242 4242');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('sig_0011223344556677');
    expect(text).not.toContain('pk_live_abcdef123456');
    expect(text).not.toMatch(/"cvv":"123"/);
    expect(text).toContain('[redacted]');
    expect(text).toContain('[card number]');
    expect(text).toContain('"card_brand":"visa"');
    expect(text).toContain('"card_last4":"4242"');
    expect(text.trim().split('\n')).toHaveLength(7);
  });

  it('keeps ordinary long numbers that are not card numbers', () => {
    const dir = tempDir();
    const log = createLogger({ dataDir: dir });
    log.info({ internal_reference: '1234567890123' }, 'order 1234567890123');
    expect(fs.readFileSync(logFilePath(dir), 'utf8')).toContain('1234567890123');
  });
});

describe('log rotation', () => {
  it('moves a log past its size limit aside at start, keeping a fixed number of old files', async () => {
    const { rotateLogs } = await import('../../main/log/logger.js');
    const dir = tempDir();
    const file = logFilePath(dir);
    fs.mkdirSync(`${dir}/logs`);
    for (let gen = 1; gen <= 4; gen++) {
      fs.writeFileSync(file, `generation ${gen}\n`.repeat(20));
      rotateLogs(file, { maxBytes: 100, keep: 3 });
    }
    fs.writeFileSync(file, 'small\n');
    rotateLogs(file, { maxBytes: 100, keep: 3 });
    expect(fs.readdirSync(`${dir}/logs`).sort()).toEqual([
      'merchant-desk.log',
      'merchant-desk.log.1',
      'merchant-desk.log.2',
      'merchant-desk.log.3',
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe('small\n');
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toMatch(/^generation 4/);
    expect(fs.readFileSync(`${file}.3`, 'utf8')).toMatch(/^generation 2/);
  });
});
