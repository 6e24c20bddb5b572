// The callback receiver leaves loopback only with the user's yes in the main process: settings.update
// over the real dispatcher, a real data folder and the real composed app.
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function start() {
  core = await composeCore({ dataDir: tempDir(), logger: silentLogger(), poll: false });
  return { core, d: typedInvoke(createDispatcher(buildHandlers(core))) };
}

describe('callback receiver listen address', () => {
  it('0.0.0.0 is refused without a main-process confirm, refused when it says no, applied when it says yes', async () => {
    const { core, d } = await start();
    const asked: string[] = [];

    const none = await d('settings.update', { callbackReceiver: { host: '0.0.0.0' } });
    expect(none).toMatchObject({ ok: false, error: { kind: 'confirm_required', field: 'callbackReceiver.host' } });
    expect(core.settings().callbackReceiver.host).toBe('127.0.0.1');

    core.confirm = async (o) => {
      asked.push(o.message);
      return false;
    };
    const no = await d('settings.update', { callbackReceiver: { host: '0.0.0.0' } });
    expect(no).toMatchObject({ ok: false, error: { kind: 'confirm_required', field: 'callbackReceiver.host' } });
    expect(core.settings().callbackReceiver.host).toBe('127.0.0.1');
    expect(core.callbackReceiverUrl()).toMatch(/^http:\/\/127\.0\.0\.1:/);

    core.confirm = async (o) => {
      asked.push(o.message);
      return true;
    };
    const yes = await d('settings.update', { callbackReceiver: { host: '0.0.0.0' } });
    expect(yes.ok).toBe(true);
    expect(core.settings().callbackReceiver.host).toBe('0.0.0.0');
    expect(asked).toEqual(['Listen for callbacks on 0.0.0.0?', 'Listen for callbacks on 0.0.0.0?']);
  });

  it('a loopback address needs no confirm', async () => {
    const { core, d } = await start();
    const r = await d('settings.update', { callbackReceiver: { host: 'localhost' } });
    expect(r.ok).toBe(true);
    expect(core.settings().callbackReceiver.host).toBe('localhost');
  });
});
