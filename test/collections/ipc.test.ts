// The payments channels through the real dispatcher (zod at the boundary, errors as IpcResult), with the
// sandbox over HTTP. The request carrying the card is never logged, not even when a handler fails.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { collectionsHandlers } from '../../main/ipc/handlers/collections.js';
import { deskOperations } from '../../main/app/desk-operations.js';
import { deskQueries } from '../../main/app/desk-queries.js';
import { reconcileHandlers } from '../../main/ipc/handlers/reconcile.js';
import type { Core, OpenPathChooser } from '../../main/app/core.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { createEventBus } from '../../main/app/event-bus.js';
import { workspaceCharges } from '../../main/app/workspace-charges.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { MemorySecretStore } from '../../main/secrets/secret-store.js';
import { createServiceClient } from '../../main/service/client.js';
import { defaultSettings } from '../../main/settings/settings.js';
import { systemClock } from '../../main/clock.js';
import { callbackBody, hmacHeader } from '../callbacks/support.js';
import { tempDir } from '../support/tmp.js';
import { CARDS, cardForm, REDIRECT_URL, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup(opts: { chooser?: OpenPathChooser } = {}) {
  h = await startHarness({ window: false });
  const dataDir = tempDir();
  let logText = '';
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _enc, cb) {
        logText += chunk.toString();
        cb();
      },
    }),
  );
  const secrets = new MemorySecretStore();
  await secrets.set('signing-key', h.sandbox.signingKey);
  const client = createServiceClient({
    baseUrl: h.sandbox.baseUrl,
    keys: () => ({ publicKey: h!.sandbox.publicKey, secretKey: h!.sandbox.secretKey }),
  });
  const events: { event: string; payload: unknown }[] = [];
  const emitter = createEventBus();
  pushToRenderer(emitter, (event, payload) => events.push({ event, payload }));
  const closers: (() => void | Promise<void>)[] = [];
  const settings = () => ({ ...defaultSettings(), redirectUrl: REDIRECT_URL, operatorName: 'Desk Agent' });
  const keys = () => ({ signingKey: h!.sandbox.signingKey, servicePublicKey: h!.sandbox.servicePublicKeyPem });
  // The workspace's charge service, as the app builds it (no payment window: a headless shell).
  const charges = workspaceCharges({
    db: h.db,
    ledger: h.ledger,
    clock: systemClock,
    logger,
    events: emitter,
    getClient: async () => client,
    keys,
    settings,
    paymentWindow: () => null,
  });
  closers.push(() => charges.dispose());
  const core = {
    dataDir,
    chooseOpenPath: opts.chooser ?? null,
    db: h.db,
    ledger: h.ledger,
    clock: systemClock,
    logger,
    secrets: () => secrets,
    settings,
    getClient: () => client,
    verificationKeys: keys,
    charges: () => charges,
    ready: async () => {},
    events: emitter,
    onClose: (fn: () => void | Promise<void>) => closers.push(fn),
  } as unknown as Core;
  // The reconciliation channels too: an imported orphan is read where the Unknown references screen reads it.
  const ops = deskOperations(core);
  const queries = deskQueries(core);
  const handlers = { ...collectionsHandlers(ops, queries), ...reconcileHandlers(ops, queries) };
  const dispatch = createDispatcher(handlers as unknown as HandlerTable, logger);
  return { dispatch, events, dataDir, log: () => logText, close: () => Promise.all(closers.map((f) => f())) };
}

describe('payments and collections over IPC', () => {
  it('charge, list, get; field errors come back per field; the card is in no log line', async () => {
    const t = await setup();
    const opts = await t.dispatch('payments.options', {});
    expect(opts).toMatchObject({
      ok: true,
      value: expect.arrayContaining([expect.objectContaining({ currency: 'UGX', providerCode: 'CARD_UGX' })]),
    });

    const form = cardForm(CARDS.approve);
    const charged = await t.dispatch('payments.charge', form);
    expect(charged).toMatchObject({
      ok: true,
      value: {
        outcome: { kind: 'pending' },
        collection: { status: 'PENDING', operator: 'Desk Agent', cardLast4: '4242' },
      },
    });
    const ref = (charged as { value: { collection: { merchantReference: string; id: number } } }).value.collection
      .merchantReference;
    expect(t.events.map((e) => e.event)).toContain('collections.updated');

    const bad = await t.dispatch('payments.charge', cardForm('4242 4242 4242 4241', { description: 'short' }));
    expect(bad).toMatchObject({
      ok: false,
      error: {
        kind: 'validation',
        field: 'description',
        fields: { description: expect.any(String), 'card.number': expect.any(String) },
      },
    });
    const missing = await t.dispatch('payments.charge', { amount: '1000', currency: 'UGX' });
    expect(missing).toMatchObject({
      ok: false,
      error: { kind: 'validation', fields: { description: expect.any(String), card: expect.any(String) } },
    });

    const list = await t.dispatch('collections.list', {
      text: ref.slice(0, 12).toLowerCase(),
      sort: { column: 'amount', dir: 'asc' },
    });
    expect(list).toMatchObject({ ok: true, value: { total: 1, rows: [{ merchantReference: ref }] } });
    const got = await t.dispatch('collections.get', { reference: ref });
    expect(got).toMatchObject({
      ok: true,
      value: {
        collection: { merchantReference: ref },
        events: [{ kind: 'intent_saved' }, { kind: 'initialize_accepted' }],
      },
    });
    expect(await t.dispatch('collections.get', { reference: 'MD-NOPE' })).toMatchObject({
      ok: false,
      error: { kind: 'not_found', field: 'reference' },
    });
    expect(await t.dispatch('collections.list', { sort: { column: 'card_no', dir: 'asc' } })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });

    // A failing charge (the service is not reachable for its card limits) is refused, nothing saved,
    // and its request is not logged.
    await h!.sandbox.close();
    const down = await t.dispatch('payments.charge', cardForm(CARDS.approve, { amount: '33000' }));
    expect(down).toMatchObject({ ok: false, error: { kind: 'network' } });
    expect(await t.dispatch('collections.list', {})).toMatchObject({ ok: true, value: { total: 1 } });

    for (const needle of ['4242424242424242', '4242 4242 4242 4242', '4242424242424241', '"cvv"'])
      expect(t.log()).not.toContain(needle);
    await t.close();
  });

  it('callbacks.import takes the file text; a repeat is all duplicates', async () => {
    const t = await setup();
    const b = callbackBody('NOT-OURS-IPC1');
    const content =
      JSON.stringify({ headers: { 'hmac-signature': hmacHeader(b, h!.sandbox.signingKey) }, body: b }) + '\nnot json\n';
    const r = await t.dispatch('callbacks.import', { content });
    expect(r).toMatchObject({ ok: true, value: { lines: 2, imported: 1, orphans: 1, malformed: 1 } });
    const again = await t.dispatch('callbacks.import', { content });
    expect(again).toMatchObject({ ok: true, value: { duplicates: 1 } });
    expect(await t.dispatch('reconcile.orphans', {})).toMatchObject({
      ok: true,
      value: { total: 1, rows: [{ merchantReference: 'NOT-OURS-IPC1' }] },
    });
    expect(await t.dispatch('callbacks.import', {})).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'name' },
    });
    await t.close();
  });

  it('callbacks.import takes a file of the imports folder by name, listed by callbacks.importFolder', async () => {
    const t = await setup();
    const folder = path.join(t.dataDir, 'imports');
    expect(await t.dispatch('callbacks.importFolder', {})).toEqual({
      ok: true,
      value: { canChoose: false, folder, files: [] },
    });
    const b = callbackBody('NOT-OURS-IPC2');
    fs.writeFileSync(
      path.join(folder, 'saved.jsonl'),
      JSON.stringify({ headers: { 'hmac-signature': hmacHeader(b, h!.sandbox.signingKey) }, body: b }) + '\n',
    );
    fs.symlinkSync('/etc/passwd', path.join(folder, 'passwd.jsonl')); // a link out of the folder is neither listed nor read
    const listed = await t.dispatch('callbacks.importFolder', {});
    expect(listed).toMatchObject({
      ok: true,
      value: { files: [{ name: 'saved.jsonl', bytes: fs.statSync(path.join(folder, 'saved.jsonl')).size }] },
    });
    expect(await t.dispatch('callbacks.import', { name: 'saved.jsonl' })).toMatchObject({
      ok: true,
      value: { lines: 1, orphans: 1 },
    });
    expect(await t.dispatch('callbacks.import', { name: 'passwd.jsonl' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'name' },
    });
    expect(await t.dispatch('callbacks.import', { name: 'missing.jsonl' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'name' },
    });
    await t.close();
  });

  it('callbacks.import refuses any path with a field error and reads nothing', async () => {
    const t = await setup();
    const attempts: [Record<string, unknown>, string][] = [
      [{ path: '/etc/passwd' }, 'path'],
      [{ path: '../../etc/passwd' }, 'path'],
      [{ name: '/etc/passwd' }, 'name'],
      [{ name: '../../../../etc/passwd' }, 'name'],
      [{ name: '..' }, 'name'],
      [{ name: '..\\..\\x.jsonl' }, 'name'],
    ];
    for (const [req, field] of attempts) {
      const r = await t.dispatch('callbacks.import', req);
      expect(r, JSON.stringify(req)).toMatchObject({ ok: false, error: { kind: 'validation', field } });
      // Nothing about the file leaks back: no line count, no summary.
      expect(JSON.stringify(r)).not.toMatch(/lines|root:/);
    }
    expect(t.events.filter((e) => e.event === 'callbacks.ingested')).toEqual([]);
    await t.close();
  });

  it('with the shell open dialog: the chosen file is imported; closing the dialog imports nothing', async () => {
    const file = path.join(tempDir(), 'picked.jsonl');
    let answer: string | null = file;
    const t = await setup({ chooser: async () => answer });
    const b = callbackBody('NOT-OURS-IPC3');
    fs.writeFileSync(
      file,
      JSON.stringify({ headers: { 'hmac-signature': hmacHeader(b, h!.sandbox.signingKey) }, body: b }) + '\n',
    );
    expect(await t.dispatch('callbacks.importFolder', {})).toMatchObject({ ok: true, value: { canChoose: true } });
    expect(await t.dispatch('callbacks.import', {})).toMatchObject({ ok: true, value: { lines: 1, orphans: 1 } });
    answer = null;
    expect(await t.dispatch('callbacks.import', {})).toEqual({ ok: true, value: { chosen: null } });
    await t.close();
  });
});
