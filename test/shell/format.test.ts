// The window's one formatting module (renderer/src/ui/format.ts): Intl in the person's locale, one style
// per kind of date, amounts from integer minor units (exact decimal text, no float maths), days typed in
// the person's order; and the status words as the catalogue says them.
import { describe, expect, it } from 'vitest';
import { IntlMessageFormat } from 'intl-messageformat';
import { brandName, formatsFor } from '../../renderer/src/ui/format.js';
import { STATUS_CODES, methodLabel, statusLabel } from '../../renderer/src/ui/status.js';
import { catalogue, type MessageId } from '../../main/words/words.shared.js';

const en = formatsFor('en-US');
const gb = formatsFor('en-GB');
const fr = formatsFor('fr');
const say = (lang: 'en' | 'fr') => (id: MessageId, values?: Record<string, string>) =>
  String(new IntlMessageFormat(catalogue[lang][id], lang).format(values));

describe('amounts', () => {
  it('shows minor units with the currency’s decimals, grouped as the locale groups, never rounded', () => {
    expect(en.amount(150_050, 'KES')).toBe('KES\u00a01,500.50');
    expect(en.amount(1_500, 'XAF', { code: false })).toBe('1,500');
    expect(fr.amount(150_050, 'KES')).toBe('1\u202f500,50\u00a0KES');
    expect(fr.amount(2_500_000, 'XOF')).toBe('2\u202f500\u202f000\u00a0XOF');
    expect(en.amount(9_007_199_254_740_991, 'UGX', { code: false })).toBe('9,007,199,254,740,991');
    expect(en.amount(9_007_199_254_740_991, 'KES', { code: false })).toBe('90,071,992,547,409.91');
    expect(en.amount(-18_609, 'KES', { code: false })).toBe('-186.09');
    expect(en.amount(12, 'ZZZ')).toBe('12 (minor units) ZZZ');
  });
});

describe('dates', () => {
  const at = Date.UTC(2026, 10, 22, 11, 48, 3);
  it('is one date-time format: the same text for ms, ISO and Date, a dash for none', () => {
    const text = en.dateTime(at);
    expect(en.dateTime(new Date(at).toISOString())).toBe(text);
    expect(en.dateTime(new Date(at))).toBe(text);
    expect(text).toBe(new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'medium' }).format(at));
    expect(fr.dateTime(at)).toBe(
      new Intl.DateTimeFormat('fr', { dateStyle: 'medium', timeStyle: 'medium' }).format(at),
    );
    expect(en.dateTime(null)).toBe('—');
    expect(en.dateTime('not a time')).toBe('not a time');
  });

  it('types a day in the person’s order and reads it back, ISO too', () => {
    expect(en.dayText('2026-12-02')).toBe('12/02/2026');
    expect(gb.dayText('2026-12-02')).toBe('02/12/2026');
    expect(fr.dayText('2026-12-02')).toBe('02/12/2026');
    expect(en.dayValue('12/2/2026')).toBe('2026-12-02');
    expect(fr.dayValue('2/12/2026')).toBe('2026-12-02');
    expect(fr.dayValue('2026-12-02')).toBe('2026-12-02');
    expect(fr.dayValue('31/02/2026')).toBeUndefined();
    expect(fr.dayValue('')).toBe('');
    expect(fr.dayValue('hier')).toBeUndefined();
  });

  it('says a file size in the locale’s units', () => {
    expect(en.fileSize(512)).toBe('512 bytes');
    expect(en.fileSize(1536)).toBe('1.5 kB');
    expect(fr.fileSize(1536)).toBe('1,5\u202fko');
  });
});

describe('card brands', () => {
  it('are named in one place, as the brand writes itself', () => {
    expect(brandName('jcb')).toBe('JCB');
    expect(brandName('JCB')).toBe('JCB');
    expect(brandName('amex')).toBe('American Express');
    expect(brandName('mastercard')).toBe('Mastercard');
    expect(brandName('unknown')).toBeNull();
    expect(brandName(null)).toBeNull();
  });
});

describe('status words', () => {
  it('never shows a raw service code for a known status, in either language', () => {
    for (const code of STATUS_CODES) {
      expect(statusLabel(say('en'), code)).not.toBe(code);
      expect(statusLabel(say('fr'), code)).not.toBe(code);
    }
    expect(statusLabel(say('en'), 'COMPLETED')).toBe('Approved');
    expect(statusLabel(say('en'), 'FAILED')).toBe('Declined');
    expect(statusLabel(say('fr'), 'COMPLETED')).toBe('Approuvé');
    expect(statusLabel(say('fr'), 'FAILED')).toBe('Refusé');
    expect(statusLabel(say('fr'), 'CANCELLED')).toBe('Annulé');
    expect(statusLabel(say('fr'), 'PENDING')).toBe('En attente');
    expect(statusLabel(say('en'), null)).toBe('—');
  });
  it('names payment methods as the options table does', () => {
    expect(methodLabel(say('en'), 'CARD')).toBe('Card');
    expect(methodLabel(say('fr'), 'CARD')).toBe('Carte');
    expect(methodLabel(say('en'), 'MOBILE_MONEY')).toBe('Mobile Money');
  });
});
