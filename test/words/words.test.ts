// Words as main makes and sends them: the English rendering that logs, the CLI and an error's message
// keep, the value kinds named by their keys (moments, amounts, words inside words), and what the window
// accepts as words from over the bridge.
import { describe, expect, it } from 'vitest';
import { asWords, english, words } from '../../main/words/words.shared.js';
import { DeskError } from '../../main/errors.shared.js';
import { toIpcError } from '../../main/ipc/dispatch.js';

describe('words', () => {
  it('renders English with moments as ISO 8601 and amounts from minor units with their currency', () => {
    expect(english(words('lock.disabled', { login: 'kofi' }))).toBe(
      'An admin disabled the login kofi: it cannot sign in until an admin enables it again.',
    );
    expect(english(words('status.startFailed', { reason: 'x' }))).toBe('Start-up failed: x');
  });

  it('renders words inside words from a key ending in Id, with the same values', () => {
    const w = words('lock.cannotSignIn', { whyId: 'team.tls.plainText', host: 'db.example' });
    expect(english(w)).toBe(
      'Cannot sign in: the team database at db.example is reached in plain text (sslmode disable): references, amounts and e-mails cross the network unencrypted. Check the network and try again.',
    );
  });

  it('accepts from the bridge only a known id with JSON values', () => {
    expect(asWords({ id: 'lock.wrongPassword' })).toEqual({ id: 'lock.wrongPassword' });
    expect(asWords({ id: 'no.such.id' })).toBeNull();
    expect(asWords({ id: 'lock.disabled', values: { login: { nested: true } } })).toBeNull();
    expect(asWords('lock.wrongPassword')).toBeNull();
  });

  it('makes an error from words: its message is the English, and IPC carries the words to the window', () => {
    const e = new DeskError('validation', words('lock.passphraseTooShort', { min: 8 }), {
      expose: true,
      field: 'passphrase',
      fieldWords: { passphrase: words('lock.passphraseTooShort', { min: 8 }) },
    });
    expect(e.message).toBe('passphrase must be at least 8 characters');
    expect(e.fields).toEqual({ passphrase: 'passphrase must be at least 8 characters' });
    const ipc = toIpcError(e);
    expect(ipc.words).toEqual({ id: 'lock.passphraseTooShort', values: { min: 8 } });
    expect(ipc.fieldWords).toEqual({ passphrase: { id: 'lock.passphraseTooShort', values: { min: 8 } } });
    // The window's JSON: words are plain data.
    expect(JSON.parse(JSON.stringify(ipc))).toEqual(ipc);
  });
});
