// A team's working day on real parts, for the convergence property: a real PostgreSQL database (migrated,
// with operators), the sandbox as the service over HTTP, `serve` receiving its signed callbacks into the
// team record, and desks that are whole apps (composeCore on a team data folder, signed in, driven through
// the same IPC handlers the window calls). Each desk reaches PostgreSQL through a TCP relay the run can cut
// (an outage) and restore; a desk can be closed and opened again on its data folder (a restart).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type CompleteOutcome, type Sandbox } from '../../../sandbox/index.js';
import { composeCore, type Core } from '../../../main/app/core.js';
import { createLogger, silentLogger } from '../../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../../main/settings/index.js';
import { importServicePublicKey } from '../../../main/settings/service-key.js';
import { buildHandlers } from '../../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../../main/ipc/dispatch.js';
import { lockGate } from '../../../main/ipc/lock-gate.js';
import type { PaymentWindowOpener, PaymentWindowResult } from '../../../main/collections/payment-window.js';
import { startServe, type RunningServe } from '../../../main/serve/server.js';
import { teamFixture, type TeamFixture } from '../fixture.js';
import { storeTeamKeys, forgetTeamKeys } from '../../app/team-keychain.js';
import type { TeamRole } from '../../../main/team/operators.js';
import { outboxCounts } from '../../../main/collections/outbox.js';
import { lastSeq } from '../../../main/store/sqlite/team/sync-state.js';
import { until } from '../../support/wait.js';

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
export async function relay(host: string, port: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let listenPort = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((inbound) => {
        const outbound = net.connect(port, host);
        for (const x of [inbound, outbound]) {
          sockets.add(x);
          x.on('close', () => sockets.delete(x));
          x.on('error', () => undefined);
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      s.once('error', reject);
      s.listen(listenPort, '127.0.0.1', () => {
        listenPort = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();
  return {
    port: () => listenPort,
    isCut: () => server === null,
    async cut() {
      const s = server;
      server = null;
      for (const x of sockets) x.destroy();
      await new Promise<void>((r) => (s ? s.close(() => r()) : r()));
    },
    async restore() {
      if (!server) await listen();
    },
  };
}
export type Relay = Awaited<ReturnType<typeof relay>>;

/** What the payment window does with the next page it opens. */
export type WindowPlan = { action: 'complete'; outcome: CompleteOutcome } | { action: 'close' };

export interface Desk {
  name: string;
  login: string;
  role: TeamRole;
  dataDir: string;
  core: Core;
  invoke: ReturnType<typeof typedInvoke>;
  relay: Relay;
  /** The plan for the next payment window this desk opens. */
  plan: WindowPlan;
  /** Closes the app and opens it again on the same data folder, signed in again. */
  restart(): Promise<void>;
}

export interface World {
  team: TeamFixture;
  sb: Sandbox;
  serve: RunningServe;
  desks: Desk[];
  /** A desk that was never used, signed in now: its copy is a fresh replay of team.events. */
  replayDesk(): Promise<Desk>;
  /** Waits until nothing moves any more: callbacks delivered, outboxes empty, every desk at the record's head. */
  quiesce(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A sandbox state folder holding only the service's RSA keys (made once per file: RSA-4096 takes seconds). */
export async function sandboxKeysTemplate(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-conv-sbkeys-'));
  const sb = await startSandbox({ stateDir: dir });
  await sb.close();
  for (const f of fs.readdirSync(dir)) if (!f.endsWith('.pem')) fs.rmSync(path.join(dir, f), { recursive: true });
  return dir;
}

export async function startWorld(o: { keysTemplate: string; roles: TeamRole[] }): Promise<World> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-conv-'));
  const sbDir = path.join(root, 'sandbox');
  fs.cpSync(o.keysTemplate, sbDir, { recursive: true });
  const team = await teamFixture();
  const sb = await startSandbox({ stateDir: sbDir, timeScale: 1000 });
  await storeTeamKeys(sb);
  const receiver = await team.addOperator('receiver', 'serve');
  const serve = await startServe({
    databaseUrl: team.db.urlFor(receiver, team.password(receiver)),
    host: '127.0.0.1',
    port: 0,
    verification: { signingKey: sb.signingKey, servicePublicKey: sb.servicePublicKeyPem },
    poll: {
      baseUrl: sb.baseUrl,
      keys: { publicKey: sb.publicKey, secretKey: sb.secretKey },
      intervals: { balancesMs: 60_000, providersMs: 60_000 },
    },
    dataDir: fs.mkdtempSync(path.join(root, 'serve-')),
    logger: silentLogger(),
    rateLimit: { loopbackPerSecond: 100_000, loopbackBurst: 100_000 },
  });
  sb.controls.config({ callback_url: serve.url });
  const desks: Desk[] = [];
  /** Every desk opened, the replay's included: all are closed at the end. */
  const opened: Desk[] = [];
  const logins: { url: string; login: string }[] = [];

  async function openDesk(name: string, role: TeamRole): Promise<Desk> {
    const login = await team.addOperator(role, name);
    const r = await relay(team.db.server.host, team.db.server.port);
    const url = `postgres://127.0.0.1:${r.port()}/${team.db.name}`;
    logins.push({ url, login });
    const dataDir = fs.mkdtempSync(path.join(root, `desk-${name}-`));
    const db = openProfileDatabase(dataDir, 'team');
    try {
      updateSettings(db, { profile: 'team', baseUrl: sb.baseUrl, teamDatabaseUrl: url, teamLogin: login });
      importServicePublicKey(db, dataDir, sb.servicePublicKeyPem);
    } finally {
      db.close();
    }
    writeActiveProfile(dataDir, 'team');
    const desk = { name, login, role, dataDir, relay: r, plan: { action: 'close' } } as Desk;
    const window: PaymentWindowOpener = {
      async open({ paymentUrl }): Promise<PaymentWindowResult> {
        const plan = desk.plan;
        if (plan.action === 'close') return { kind: 'closed' };
        const ref = desk.core.db
          .prepare('SELECT merchant_reference FROM collections WHERE payment_url = ?')
          .pluck()
          .get(paymentUrl) as string | undefined;
        if (!ref) return { kind: 'error', message: `no collection with payment_url ${paymentUrl}` };
        const { redirect_url } = await sb.controls.complete(ref, plan.outcome);
        return { kind: 'redirect', url: redirect_url };
      },
    };
    const open = async () => {
      const core = await composeCore({
        dataDir,
        // CONVERGENCE_DEBUG: each desk logs as the app does (its data folder's logs/), and the day's folder is kept.
        logger: process.env.CONVERGENCE_DEBUG ? createLogger({ dataDir, level: 'debug' }) : silentLogger(),
        receiver: false,
        poll: false,
        lock: { checkEveryMs: 0 },
        teamSyncEveryMs: 250,
        paymentWindow: window,
      });
      await core.ready();
      await core.lock.unlock(team.password(login));
      desk.core = core;
      desk.invoke = typedInvoke(createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock)));
    };
    await open();
    opened.push(desk);
    desk.restart = async () => {
      await desk.core.close();
      await open();
    };
    return desk;
  }

  for (const [i, role] of o.roles.entries()) desks.push(await openDesk(`desk${i}`, role));

  const world: World = {
    team,
    sb,
    serve,
    desks,
    async replayDesk() {
      const d = await openDesk(`replay`, 'finance');
      await d.core.team()!.sync.pullNow();
      return d;
    },
    async quiesce(timeoutMs = 60_000) {
      for (const d of desks) await d.relay.restore();
      await sb.controls.callbacksSettled(timeoutMs);
      const head = async () =>
        Number(
          (await team.owner.query<{ s: string }>('SELECT coalesce(max(seq), 0) AS s FROM team.events')).rows[0]!.s,
        );
      let stableAt = -1;
      await until(
        'every desk has sent its outbox and applied the record to its head',
        async () => {
          const h = await head();
          for (const d of desks) {
            const s = d.core.team();
            if (!s) return false;
            await s.sync.pullNow().catch(() => 0);
            if (outboxCounts(d.core.db).pending > 0) {
              s.push.kick();
              return false;
            }
            if (lastSeq(d.core.db, 'events') < h) return false;
          }
          // Twice in a row at the same head: nothing was still on its way.
          const same = stableAt === h;
          stableAt = h;
          return same;
        },
        timeoutMs,
      );
    },
    async close() {
      for (const d of opened) await d.core.close().catch(() => undefined);
      await serve.close().catch(() => undefined);
      await sb.close().catch(() => undefined);
      for (const d of opened) await d.relay.cut().catch(() => undefined);
      for (const { url, login } of logins) await forgetTeamKeys(url, [login]);
      await team.close();
      if (process.env.CONVERGENCE_DEBUG) console.info(`convergence: desks' data and logs kept in ${root}`);
      else fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return world;
}
