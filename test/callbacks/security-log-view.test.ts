// The refused-callbacks view over the real dispatcher: a forged callback sent to the app's own receiver
// shows up as a count, and the collection it names is untouched.
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';
import { getCollection } from '../../main/collections/query.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader } from './support.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

describe('refused callbacks view', () => {
  it('counts a forged callback per reason and source; the named collection keeps its status and flags', async () => {
    core = await composeCore({ dataDir: tempDir(), logger: silentLogger(), poll: false });
    const d = typedInvoke(createDispatcher(buildHandlers(core)));
    const id = insertCollection(core.db, { reference: 'MD-V-00000001' });
    const body = callbackBody('MD-V-00000001');
    const res = await fetch(core.callbackReceiverUrl()!, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body, 'not-the-key') },
    });
    expect(res.status).toBe(401);
    await expect
      .poll(async () => {
        const r = await d('reconcile.securityLog', {});
        return r.ok ? r.value.totals : null;
      })
      .toEqual({ bad_signature: 1 });
    const r = await d('reconcile.securityLog', {});
    expect(r.ok && r.value.rows[0]).toMatchObject({
      reason: 'bad_signature',
      count: 1,
      source: expect.stringMatching(/127\.0\.0\.1$/),
    });
    expect(getCollection(core.db, id)!.collection).toMatchObject({ status: 'PENDING', flags: [] });
  });
});
