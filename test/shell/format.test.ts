// Pure formatting used by every screen (renderer/src/ui): exact decimal strings, no float maths.
import { describe, expect, it } from 'vitest';
import { formatDateTime, groupDigits, relativeTime } from '../../renderer/src/ui/format.js';
import { STATUS_CODES, methodLabel, statusLabel } from '../../renderer/src/ui/status.js';
import { formatMinor } from '../../main/money/index.js';

describe('groupDigits', () => {
  it('groups the integer part only, keeping every decimal', () => {
    expect(groupDigits('0')).toBe('0');
    expect(groupDigits('999')).toBe('999');
    expect(groupDigits('1000')).toBe('1,000');
    expect(groupDigits('1234567.50')).toBe('1,234,567.50');
    expect(groupDigits('-1234.05')).toBe('-1,234.05');
    expect(groupDigits(formatMinor(9_007_199_254_740_991, 'UGX'))).toBe('9,007,199,254,740,991');
    expect(groupDigits(formatMinor(9_007_199_254_740_991, 'KES'))).toBe('90,071,992,547,409.91');
  });
});

describe('relativeTime', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  it('says how long ago, coarsening with age', () => {
    expect(relativeTime(now - 3_000, now)).toBe('just now');
    expect(relativeTime(now - 42_000, now)).toBe('42 s ago');
    expect(relativeTime(now - 2 * 60_000, now)).toBe('2 min ago');
    expect(relativeTime(now - 5 * 3_600_000, now)).toBe('5 h ago');
    expect(relativeTime(now - 3 * 86_400_000, now)).toBe(formatDateTime(now - 3 * 86_400_000));
  });
});

describe('formatDateTime', () => {
  it('is the one date-time format: the same text for ms, ISO and Date, a dash for none', () => {
    const at = Date.UTC(2026, 10, 22, 11, 48, 3);
    const text = formatDateTime(at);
    expect(formatDateTime(new Date(at).toISOString())).toBe(text);
    expect(formatDateTime(new Date(at))).toBe(text);
    expect(text).toBe(new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(at));
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime('not a time')).toBe('not a time');
  });
});

describe('status words', () => {
  it('never shows a raw service code for a known status', () => {
    for (const code of STATUS_CODES) expect(statusLabel(code)).not.toBe(code);
    expect(statusLabel('COMPLETED')).toBe('Approved');
    expect(statusLabel('FAILED')).toBe('Declined');
    expect(statusLabel('INTENT')).toBe('Intent saved');
    expect(statusLabel(null)).toBe('—');
  });
  it('names payment methods as the options table does', () => {
    expect(methodLabel('CARD')).toBe('Card');
    expect(methodLabel('MOBILE_MONEY')).toBe('Mobile Money');
  });
});
