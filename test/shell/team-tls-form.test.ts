// Settings, Connection's TLS choice for the team database (renderer/src/screens/Settings/team-tls.ts):
// every mode main knows is offered, with "by host" first, and the select reads back as the setting.
import { catalogue } from '../../main/words/words.shared.js';
import { describe, expect, it } from 'vitest';
import { SSL_MODE_CHOICES, sslModeSetting } from '../../renderer/src/screens/Settings/team-tls.js';
import { SSL_MODES } from '../../main/team/database-url.js';

describe('the TLS choice', () => {
  it('offers "by host" first and then every mode main knows', () => {
    expect(SSL_MODE_CHOICES[0]).toMatchObject({ value: '' });
    expect(
      SSL_MODE_CHOICES.map((c) => c.value)
        .slice(1)
        .sort(),
    ).toEqual([...SSL_MODES].sort());
    expect(catalogue.en[SSL_MODE_CHOICES.find((c) => c.value === 'disable')!.label]).toMatch(/plain text/);
  });
  it('reads back as the setting: "by host" is null', () => {
    expect(sslModeSetting('')).toBeNull();
    expect(sslModeSetting('verify-ca')).toBe('verify-ca');
    expect(sslModeSetting('prefer')).toBeNull();
  });
});
