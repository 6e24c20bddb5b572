// The Settings Team section's pure parts (renderer/src/screens/Settings/team-form.ts): the Add operator
// form is checked field by field before it is sent, with the same login rule main and PostgreSQL apply.
import { describe, expect, it } from 'vitest';
import {
  checkNewOperator,
  EMPTY_OPERATOR_FORM,
  isTeamProfile,
  operatorStatus,
} from '../../renderer/src/screens/Settings/team-form.js';
import { english, type Words } from '../../main/words/words.shared.js';

/** The form's problems in English (the window says the same words in the person's language). */
const check = (f: Parameters<typeof checkNewOperator>[0]) =>
  Object.fromEntries(Object.entries(checkNewOperator(f)).map(([k, w]) => [k, english(w as Words)]));

const good = {
  login: 'amina_k',
  displayName: 'Amina K',
  role: 'support' as const,
  password: 'twelve chars',
  passwordAgain: 'twelve chars',
};

describe('checkNewOperator', () => {
  it('accepts a complete form', () => {
    expect(check(good)).toEqual({});
    expect(check({ ...good, login: '  amina_k ' })).toEqual({}); // trimmed, as main does
  });

  it('names every missing field of an empty form', () => {
    expect(Object.keys(check(EMPTY_OPERATOR_FORM)).sort()).toEqual(['displayName', 'login', 'password', 'role']);
  });

  it('refuses logins PostgreSQL would: capitals, spaces, a leading digit, pg_, one letter', () => {
    for (const login of ['Amina', 'amina k', '1amina', 'pg_amina', 'a', 'amina-k']) {
      expect(check({ ...good, login }).login).toMatch(/lower-case letters, digits or _/);
    }
  });

  it('asks for 12 characters and the same password twice', () => {
    expect(check({ ...good, password: 'short', passwordAgain: 'short' }).password).toBe(
      'At least 12 characters (5 so far).',
    );
    expect(check({ ...good, passwordAgain: 'twelve chars!' })).toEqual({
      passwordAgain: 'The two passwords differ.',
    });
  });

  it('refuses a role that is not a team role and a blank name', () => {
    expect(check({ ...good, role: '' }).role).toBe('Choose a role.');
    expect(check({ ...good, displayName: '   ' }).displayName).toMatch(/Enter the name/);
  });
});

describe('team profile and status', () => {
  it('shows the section only on the team profile', () => {
    expect(isTeamProfile('team')).toBe(true);
    for (const p of ['embedded', 'sandbox', 'live']) expect(isTeamProfile(p)).toBe(false);
  });
  it('reads an operator as enabled until disabled', () => {
    expect(operatorStatus({ disabledAt: null })).toBe('enabled');
    expect(operatorStatus({ disabledAt: 1 })).toBe('disabled');
  });
});
