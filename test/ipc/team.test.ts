// The team.* IPC calls through the real dispatcher against a real PostgreSQL: an admin's session
// manages operators, a support session is refused by the database itself (the handler does not look at
// the role), and no session at all is a clear error rather than a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { teamHandlers, type TeamAccess } from '../../main/ipc/handlers/team.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import type { TeamRole } from '../../main/team/roles.shared.js';
import { teamFixture, type TeamFixture } from '../team/fixture.js';

let team: TeamFixture;
let admin: string;
let support: string;

beforeAll(async () => {
  team = await teamFixture();
  admin = await team.addOperator('admin', 'ada');
  support = await team.addOperator('support', 'sue');
});
afterAll(async () => {
  await team?.close();
});

/** A dispatcher whose team session is `login` (signed in with its own pool), or none. */
function desk(session: { login: string; role: TeamRole } | null) {
  const access: TeamAccess | null = session ? { ...session, pool: team.signIn(session.login) } : null;
  const handlers = teamHandlers({ team: () => access }) as unknown as HandlerTable;
  return typedInvoke(createDispatcher(handlers));
}

describe('team IPC', () => {
  it('without a team session every call says so', async () => {
    const invoke = desk(null);
    for (const r of [await invoke('team.me', {}), await invoke('team.operators.list', {})]) {
      expect(r).toMatchObject({ ok: false, error: { kind: 'not_configured' } });
      if (!r.ok) expect(r.error.message).toMatch(/only in a team profile, once you are signed in/);
    }
  });

  it('team.me reads the signed-in operator from the database', async () => {
    expect(await desk({ login: admin, role: 'admin' })('team.me', {})).toEqual({
      ok: true,
      value: { login: admin, role: 'admin', displayName: expect.stringMatching(/^ada /), isAdmin: true },
    });
    expect(await desk({ login: support, role: 'support' })('team.me', {})).toMatchObject({
      ok: true,
      value: { login: support, role: 'support', isAdmin: false },
    });
  });

  it('an admin adds, re-roles, disables and enables an operator; the list shows each change', async () => {
    const invoke = desk({ login: admin, role: 'admin' });
    const login = `fin_${admin.split('_')[1]}`;
    expect(
      await invoke('team.operators.add', {
        login,
        role: 'finance',
        displayName: ' Fin ',
        password: 'fin password 123',
      }),
    ).toEqual({ ok: true, value: null });
    const find = async () => {
      const r = await invoke('team.operators.list', {});
      if (!r.ok) throw new Error(r.error.message);
      return r.value.find((o) => o.login === login);
    };
    expect(await find()).toMatchObject({ login, role: 'finance', displayName: 'Fin', disabledAt: null });
    expect(await invoke('team.operators.setRole', { login, role: 'back_office' })).toEqual({ ok: true, value: null });
    expect((await find())?.role).toBe('back_office');
    expect(await invoke('team.operators.disable', { login })).toEqual({ ok: true, value: null });
    expect((await find())?.disabledAt).toEqual(expect.any(Number));
    expect((await find())?.changedBy).toBe(admin);
    expect(await invoke('team.operators.enable', { login })).toEqual({ ok: true, value: null });
    expect((await find())?.disabledAt).toBeNull();
  });

  it('names the field: the contract for the form, the database for what only it knows', async () => {
    const invoke = desk({ login: admin, role: 'admin' });
    const bad = await invoke('team.operators.add', {
      login: 'Bad Login',
      role: 'boss' as TeamRole,
      displayName: '',
      password: 'short',
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.kind).toBe('validation');
      expect(Object.keys(bad.error.fields!).sort()).toEqual(['displayName', 'login', 'password', 'role']);
      expect(bad.error.fields!.password).toMatch(/at least 12 characters/);
    }
    const unknown = await invoke('team.operators.disable', { login: 'nobody_here' });
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'validation', field: 'login' } });
    if (!unknown.ok) {
      expect(unknown.error.message).toBe("login: no operator 'nobody_here' in this team");
      // Beside the form field, as the contract's own checks are: without the field's name.
      expect(unknown.error.fields).toEqual({ login: "no operator 'nobody_here' in this team" });
    }
    const taken = await invoke('team.operators.add', {
      login: support,
      role: 'support',
      displayName: 'Again',
      password: 'again password 1',
    });
    expect(taken).toMatchObject({ ok: false, error: { kind: 'validation', field: 'login' } });
    if (!taken.ok) expect(taken.error.message).toMatch(/already exists on this server; choose another login/);
    const last = await invoke('team.operators.setRole', { login: admin, role: 'support' });
    expect(last).toMatchObject({ ok: false, error: { kind: 'validation', field: 'login' } });
    if (!last.ok) expect(last.error.message).toMatch(/is the last enabled admin; add another admin first/);
  });

  it('a support login is refused by PostgreSQL even when the session claims admin', async () => {
    // The role a session remembers only decides what the UI shows; the database decides the change.
    const invoke = desk({ login: support, role: 'admin' });
    const listed = await invoke('team.operators.list', {});
    expect(listed.ok).toBe(true);
    for (const r of [
      await invoke('team.operators.add', {
        login: 'sneaky_one',
        role: 'admin',
        displayName: 'S',
        password: 'sneaky password 1',
      }),
      await invoke('team.operators.setRole', { login: support, role: 'admin' }),
      await invoke('team.operators.disable', { login: admin }),
    ]) {
      expect(r).toMatchObject({ ok: false, error: { kind: 'permission' } });
      if (!r.ok)
        // Named with the role the database holds for them, not the one the session claims.
        expect(r.error.message).toMatch(
          new RegExp(`^only an admin can manage operators: ${support} \\(support\\) is not an admin`),
        );
    }
    expect(await desk({ login: support, role: 'admin' })('team.me', {})).toMatchObject({
      ok: true,
      value: { role: 'support', isAdmin: false },
    });
    const still = await team.owner.query('SELECT role, disabled_at FROM team.operators WHERE login = $1', [admin]);
    expect(still.rows[0]).toEqual({ role: 'admin', disabled_at: null });
    const sneaky = await team.owner.query("SELECT 1 FROM pg_roles WHERE rolname = 'sneaky_one'");
    expect(sneaky.rowCount).toBe(0);
  });
});
