// Until real sign-in arrives, the renderer may change the operator name (put on every payment and
// resolution); the main process records every change (who before, who after, when), append-only.
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

describe('operator name changes over IPC are recorded by main', () => {
  it('settings.update of the operator name leaves an audit row naming old and new, shown in the settings view', async () => {
    const t0 = Date.now();
    core = await composeCore({ dataDir: tempDir(), logger: silentLogger(), poll: false, receiver: false });
    const d = typedInvoke(createDispatcher(buildHandlers(core)));
    const first = value(await d('settings.get', {})).operatorName;

    value(await d('settings.update', { operatorName: 'Alice' }));
    value(await d('settings.update', { operatorName: 'Alice', staleAfterMs: 120_000 })); // not a change
    expect((await d('settings.update', { operatorName: '   ' })).ok).toBe(false); // refused: nothing recorded
    const view = value(await d('settings.update', { operatorName: 'Bob' }));

    expect(view.operatorNameChanges.map(({ from, to }) => ({ from, to }))).toEqual([
      { from: 'Alice', to: 'Bob' },
      { from: first, to: 'Alice' },
    ]);
    for (const c of view.operatorNameChanges) expect(Date.parse(c.at)).toBeGreaterThanOrEqual(t0 - 1000);

    const rows = core.db.prepare('SELECT setting, old_value, new_value FROM settings_audit ORDER BY id').all();
    expect(rows).toEqual([
      { setting: 'operatorName', old_value: first, new_value: 'Alice' },
      { setting: 'operatorName', old_value: 'Alice', new_value: 'Bob' },
    ]);
    expect(() => core!.db.prepare("UPDATE settings_audit SET new_value = 'Mallory'").run()).toThrow(/append-only/);
    expect(() => core!.db.prepare('DELETE FROM settings_audit').run()).toThrow(/append-only/);
  });
});
