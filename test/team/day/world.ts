// The team day's world on real parts: a PostgreSQL server of the day's own (so it can be stopped hard and
// started again), the sandbox as the service over HTTP, `serve` and every desk as processes of their own
// (so each can be killed with SIGKILL in the middle of its work), each reaching PostgreSQL through a line
// the day can cut or stall (line.ts). The server has an asynchronous standby the day can promote after
// cutting its replication (the lost tail of a failover); every line then follows the promoted server.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { migrate } from '../../../main/team/migrate.js';
import { TeamUnavailableError } from '../../../main/team/errors.js';
import { addOperator } from '../../../main/operations/operators.js';
import { openTeamPool } from '../../../main/team/pool.js';
import type { TeamRole } from '../../../main/team/operators.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../../main/settings/index.js';
import { importServicePublicKey } from '../../../main/settings/service-key.js';
import { asServerUser, serverUrl, stopServerSync, type PgServerInfo } from '../../support/postgres-server.js';
import {
  crash,
  cutReplication,
  promote,
  startPrimary,
  startStandby,
  superQuery,
} from '../../support/pg-replication.js';
import { forgetTeamKeys, storeTeamKeys } from '../../app/team-keychain.js';
import type { IpcResult } from '../../../main/ipc/contract/index.js';
import type { WindowPlan } from '../convergence/world.js';
import type { DeskView } from '../convergence/views.js';
import { startLine, type Line } from './line.js';
import { sleep } from '../../support/wait.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

/** The database is stopped, restarting or unreachable for a moment (not a refusal of what was asked). */
export function databaseAway(e: unknown): boolean {
  if (e instanceof TeamUnavailableError) return true;
  const code = (e as { code?: string }).code ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P02', '57P03', '08006', '08003', '08001'].includes(code) ||
    /Connection terminated|connection timeout|the database system is/i.test((e as Error).message)
  );
}

/** A call to a desk that was killed before it answered: what the person saw is the window going dark. */
export class DeskKilled extends Error {}

export interface Progress {
  operationId: string;
  reference: string;
  status: string;
}

/** Where a desk can be made to die (desk-child.ts arms it): inside a pull's apply, or inside a refold. */
export type KillPoint = 'apply' | 'refold';

export interface SettleState {
  signedIn: boolean;
  pending: number;
  lastSeq: number;
  status: { online: boolean; error?: string | null } | null;
}

export interface DayDesk {
  name: string;
  login: string;
  /** The role the team database holds for this login now (the day changes it). */
  role: TeamRole;
  dataDir: string;
  line: Line;
  /** Every move of a charge operation the desk reported, by operation id (survives a kill). */
  progress: Map<string, Progress[]>;
  alive(): boolean;
  invoke<T>(channel: string, request: unknown, plan?: WindowPlan): Promise<IpcResult<T>>;
  read<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * Its collections, events and reconciliation, row for row; `now` given: classified as of that moment of
   * its clock first (what its sweep would make of time passing, as reconcile/incremental.ts due does).
   */
  view(now?: number): Promise<DeskView>;
  settle(): Promise<SettleState>;
  /** SIGKILL: no close, no flush, whatever was in flight is cut where it was. */
  kill(): Promise<void>;
  /**
   * SIGKILL inside the desk's next pull's apply or refold, if one comes within `withinMs`: the desk kills
   * itself there (desk-child.ts). Resolves with what it was inside of (its own words), or null when none
   * came (then it is disarmed, and runs on) or another's kill came first.
   */
  killInside(at: KillPoint, withinMs: number): Promise<string | null>;
  /** Its clock's offset from the real time (ms): moved, it takes effect at the next start (a fake clock). */
  clockOffsetMs: number;
  /** Starts the desk's process again on its data folder and signs in. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** Pids of this desk's processes over the day (the test output names them). */
  starts: number;
}

export interface DayServe {
  url: string;
  dataDir: string;
  line: Line;
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface DayWorld {
  root: string;
  /** Processes that ended on their own (a crash of the app or serve): each is a defect the day found. */
  crashes: string[];
  /** The primary now (the promoted standby after a failover). */
  readonly pg: PgServerInfo;
  /** The database's owner, through a line of its own (it follows a failover as the desks' lines do). */
  owner: pg.Pool;
  sb: Sandbox;
  serve: DayServe;
  desks: DayDesk[];
  password(login: string): string;
  /**
   * The test's own query as the database's owner (the day's bookkeeping, an admin's change), waiting out a
   * fault of the database itself (stopped, starting up) as the person behind it would, then asking again.
   */
  ownerQuery<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  /** PostgreSQL stopped as by a crash (pg_ctl -m immediate), then started again after `downMs`. */
  restartPostgres(downMs: number): Promise<void>;
  /**
   * The lost-tail failover: replication to the asynchronous standby cut, the primary left to commit for
   * `tailMs` (and until it holds an event the standby does not, for at most 30 s more), stopped as by a
   * crash, the standby promoted and every line repointed at it. Once a day: the new primary has no standby.
   * Returns the standby's newest seq at the cut, the primary's at the crash, and the keys of the events
   * between (the lost tail, as read just before the crash).
   */
  failover(tailMs: number): Promise<{ kept: number; head: number; lost: string[] }>;
  /** A desk that was never used, signed in now (its copy is a fresh replay of team.events). */
  openDesk(name: string, role: TeamRole, o?: { clockOffsetMs?: number }): Promise<DayDesk>;
  close(): Promise<void>;
}

export interface WorldOptions {
  keysTemplate: string;
  roles: TeamRole[];
  /** Per desk index: its clock's offset from the real time (ms). */
  clockOffsetMs?: Record<number, number>;
  /** An asynchronous standby the day's failover can promote (one pg_basebackup at the start). */
  standby?: boolean;
}

function pgCtl(info: PgServerInfo, ...args: string[]): Promise<unknown> {
  const [cmd, argv] = asServerUser(info.binDir, 'pg_ctl', [
    '-D',
    path.join(info.dir, 'data'),
    '-l',
    path.join(info.dir, 'server.log'),
    '-w',
    '-t',
    '60',
    ...args,
  ]);
  return run(cmd, argv);
}

/** A child process that answers {id} messages; its pending calls fail with DeskKilled when it dies. */
function messenger(child: ChildProcess, onOther: (m: Record<string, unknown>) => void) {
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: Record<string, unknown>) => {
    const id = m.id as number | undefined;
    const w = id === undefined ? undefined : waiting.get(id);
    if (!w) return onOther(m);
    waiting.delete(id!);
    if (m.ok) w.resolve(m.value);
    else w.reject(new Error(String(m.error)));
  });
  child.on('exit', () => {
    for (const w of waiting.values()) w.reject(new DeskKilled('the desk was killed before it answered'));
    waiting.clear();
  });
  return (msg: Record<string, unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null)
        return reject(new DeskKilled('the desk is not running'));
      const id = ++next;
      waiting.set(id, { resolve, reject });
      child.send({ ...msg, id });
    });
}

export async function startWorld(o: WorldOptions): Promise<DayWorld> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-day-'));
  // Acknowledged means on disk here, as in production: a hard stop must lose nothing PostgreSQL answered
  // (startPrimary), and a standby may stream from it.
  let server = await startPrimary();
  const servers = [server];
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE team');
  await admin.end();
  const ownerLine = await startLine(server.host, server.port);
  const owner = openTeamPool(serverUrl({ ...server, port: ownerLine.port() }, 'team'), {
    onIdleError: () => undefined,
  });
  await migrate(owner);
  let standby: PgServerInfo | null = o.standby ? await startStandby(server) : null;
  if (standby) servers.push(standby);
  const suffix = crypto.randomBytes(3).toString('hex');
  const passwords = new Map<string, string>();
  let n = 0;
  const operator = async (role: TeamRole | 'receiver', name: string) => {
    const login = `${name}_${suffix}_${++n}`;
    const password = `pw-${crypto.randomBytes(12).toString('hex')}`;
    await addOperator({ pool: owner }, { login, role, password, displayName: name });
    passwords.set(login, password);
    return login;
  };

  const sbDir = path.join(root, 'sandbox');
  fs.cpSync(o.keysTemplate, sbDir, { recursive: true });
  const sb = await startSandbox({ stateDir: sbDir, timeScale: 1000 });
  await storeTeamKeys(sb);

  const crashes: string[] = [];
  /** Notes a process that ended without the day ending it, with the last of what it wrote to stderr. */
  // The person opens the app again (the administrator starts serve again), so the day goes on.
  const watchExit = (
    name: string,
    p: ChildProcess,
    expected: (signal: NodeJS.Signals | null) => boolean,
    stderr: () => string,
    again: () => Promise<void>,
  ) =>
    p.once('exit', (code, signal) => {
      if (expected(signal)) return;
      crashes.push(`${name} ended on its own (${code ?? signal}): ${stderr().slice(-1500)}`);
      setTimeout(
        () => void again().catch((e: Error) => crashes.push(`${name} did not start again: ${e.message}`)),
        200,
      );
    });

  // serve, in a process of its own, through a line of its own.
  const receiver = await operator('receiver', 'serve');
  const serveLine = await startLine(server.host, server.port);
  const serveDir = path.join(root, 'serve');
  fs.mkdirSync(serveDir);
  let serveProc: ChildProcess | null = null;
  let serveEnding = false;
  let servePort = 0;
  const serve: DayServe = {
    url: '',
    dataDir: serveDir,
    line: serveLine,
    async start() {
      const env = {
        ...process.env,
        MD_DAY_SERVE: JSON.stringify({
          databaseUrl: `postgres://${receiver}:${passwords.get(receiver)}@127.0.0.1:${serveLine.port()}/team`,
          port: servePort,
          dataDir: serveDir,
          sandbox: {
            baseUrl: sb.baseUrl,
            publicKey: sb.publicKey,
            secretKey: sb.secretKey,
            signingKey: sb.signingKey,
            servicePublicKeyPem: sb.servicePublicKeyPem,
          },
        }),
      };
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'serve-child.ts')], {
        env,
        // Its stdin is its tie to this process: it ends when the test goes away.
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      serveProc = child;
      serveEnding = false;
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += String(d)));
      watchExit(
        'serve',
        child,
        () => serveEnding,
        () => err,
        () => serve.start(),
      );
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += String(d);
          const m = /listening (\d+)/.exec(out);
          if (m) {
            servePort = Number(m[1]);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
      });
      serve.url = `http://127.0.0.1:${servePort}/callbacks/collections`;
      sb.controls.config({ callback_url: serve.url });
    },
    async kill() {
      const p = serveProc;
      if (!p || p.exitCode !== null) return;
      serveEnding = true;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await gone;
    },
    async close() {
      const p = serveProc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      serveEnding = true;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await Promise.race([gone, sleep(10_000)]);
      if (p.exitCode === null) p.kill('SIGKILL');
    },
  };
  await serve.start();

  const desks: DayDesk[] = [];
  const opened: DayDesk[] = [];

  async function openDesk(name: string, role: TeamRole, d: { clockOffsetMs?: number } = {}): Promise<DayDesk> {
    const login = await operator(role, name);
    const line = await startLine(server.host, server.port);
    const url = `postgres://127.0.0.1:${line.port()}/team`;
    const dataDir = fs.mkdtempSync(path.join(root, `desk-${name}-`));
    const db = openProfileDatabase(dataDir, 'team');
    try {
      updateSettings(db, { profile: 'team', baseUrl: sb.baseUrl, teamDatabaseUrl: url, teamLogin: login });
      importServicePublicKey(db, dataDir, sb.servicePublicKeyPem);
    } finally {
      db.close();
    }
    writeActiveProfile(dataDir, 'team');
    let child: ChildProcess | null = null;
    let ending = false;
    let call: ((m: Record<string, unknown>) => Promise<unknown>) | null = null;
    let starting: Promise<void> | null = null;
    /** Armed to die inside an apply or a refold: its SIGKILL is the day's, not a crash. */
    let armed: KillPoint | null = null;
    /** The last of what the process wrote on stderr (where an armed desk died). */
    let err = '';
    /** Signed in and answering (messages sent before it would find nobody listening). */
    let ready = false;
    const launch = async (): Promise<void> => {
      ready = false;
      const p = fork(path.join(here, 'desk-child.ts'), [dataDir], {
        execArgv: ['--import', 'tsx'],
        env: {
          ...process.env,
          // The operator's password in the environment, never an argument.
          MD_DAY_PASSWORD: passwords.get(login)!,
          MD_DAY_SANDBOX: sb.baseUrl,
          MD_DAY_CLOCK_OFFSET_MS: String(desk.clockOffsetMs),
        },
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      });
      child = p;
      ending = false;
      armed = null;
      err = '';
      p.stderr!.on('data', (x) => {
        err += String(x);
        if (err.length > 20_000) err = err.slice(-10_000);
      });
      watchExit(
        name,
        p,
        (signal) => ending || (armed !== null && signal === 'SIGKILL'),
        () => err,
        () => desk.start(),
      );
      desk.starts++;
      const signedIn = new Promise<void>((resolve, reject) => {
        p.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
        call = messenger(p, (m) => {
          if (m.type === 'ready') {
            ready = true;
            resolve();
          }
          if (m.type === 'progress') {
            const pr = m as unknown as Progress;
            const list = desk.progress.get(pr.operationId) ?? [];
            list.push({ operationId: pr.operationId, reference: pr.reference, status: pr.status });
            desk.progress.set(pr.operationId, list);
          }
        });
      });
      await signedIn;
    };
    const desk: DayDesk = {
      name,
      login,
      role,
      dataDir,
      line,
      progress: new Map(),
      starts: 0,
      clockOffsetMs: d.clockOffsetMs ?? 0,
      alive: () => ready && child !== null && child.exitCode === null && child.signalCode === null,
      invoke: (channel, request, plan) => call!({ op: 'invoke', channel, request, ...(plan ? { plan } : {}) }) as never,
      read: (sql, params) => call!({ op: 'read', sql, params: params ?? [] }) as never,
      view: (now) => call!({ op: 'view', now }) as never,
      settle: () => call!({ op: 'settle' }) as never,
      async kill() {
        const p = child;
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        ending = true;
        const gone = new Promise((r) => p.once('exit', r));
        p.kill('SIGKILL');
        await gone;
      },
      async killInside(at, withinMs) {
        if (!desk.alive()) return null;
        const p = child!;
        // 'close': after its stderr is read to the end (the words it died with).
        const gone = new Promise<void>((r) => p.once('close', () => r()));
        armed = at;
        await call!({ op: 'arm', at }).catch(() => undefined);
        const died = await Promise.race([gone.then(() => true), sleep(withinMs).then(() => false)]);
        if (!died) await call!({ op: 'arm', at: null }).catch(() => undefined);
        // Disarmed, it may still have died on its way there: what it said tells.
        if (!died && desk.alive()) return (armed = null);
        await gone;
        // Dead without saying where: another's kill (a charge killed mid-initialize) came first.
        return /day: killed inside (.*)/.exec(err)?.[1] ?? null;
      },
      start() {
        // One process per data folder: a start under way (another fault's, a crash's) is the one.
        if (desk.alive()) return Promise.resolve();
        starting ??= launch().finally(() => (starting = null));
        return starting;
      },
      async close() {
        if (!desk.alive()) return;
        const p = child!;
        ending = true;
        const gone = new Promise((r) => p.once('exit', r));
        await call!({ op: 'close' }).catch(() => undefined);
        await Promise.race([gone, sleep(10_000)]);
        await desk.kill();
      },
    };
    await desk.start();
    opened.push(desk);
    return desk;
  }

  for (const [i, role] of o.roles.entries())
    desks.push(await openDesk(`desk${i}`, role, { clockOffsetMs: o.clockOffsetMs?.[i] ?? 0 }));

  return {
    root,
    crashes,
    get pg() {
      return server;
    },
    owner,
    sb,
    serve,
    desks,
    password: (login) => passwords.get(login)!,
    async ownerQuery<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      for (const end = Date.now() + 90_000; ; await sleep(200)) {
        try {
          return await owner.query<T>(sql, params);
        } catch (e) {
          if (!databaseAway(e) || Date.now() > end) throw e;
        }
      }
    },
    openDesk,
    async restartPostgres(downMs) {
      await pgCtl(server, '-m', 'immediate', 'stop');
      await sleep(downMs);
      await pgCtl(server, 'start');
    },
    async failover(tailMs) {
      if (!standby) throw new Error('no standby left to promote (one failover a day)');
      const head = 'SELECT coalesce(max(seq), 0) AS s FROM team.events';
      const newest = async (info: PgServerInfo) =>
        Number((await superQuery<{ s: string }>(info, head, [], 'team'))[0]!.s);
      await cutReplication(standby);
      const kept = await newest(standby);
      await sleep(tailMs);
      for (const end = Date.now() + 30_000; Date.now() < end && (await newest(server)) <= kept;) await sleep(200);
      const tail = await superQuery<{ seq: string; event_key: string }>(
        server,
        'SELECT seq, event_key FROM team.events WHERE seq > $1 ORDER BY seq',
        [kept],
        'team',
      );
      await crash(server);
      await promote(standby);
      server = standby;
      standby = null;
      for (const l of [ownerLine, serveLine, ...opened.map((d) => d.line)]) l.repoint(server.port);
      return { kept, head: Number(tail.at(-1)?.seq ?? kept), lost: tail.map((r) => r.event_key) };
    },
    async close() {
      for (const d of opened) await d.close().catch(() => undefined);
      await serve.close().catch(() => undefined);
      await sb.close().catch(() => undefined);
      for (const d of opened) await d.line.close().catch(() => undefined);
      await serveLine.close().catch(() => undefined);
      await owner.end().catch(() => undefined);
      await ownerLine.close().catch(() => undefined);
      for (const d of opened) await forgetTeamKeys(`postgres://127.0.0.1:${d.line.port()}/team`, [d.login]);
      for (const s of servers) stopServerSync(s.dir, s.binDir);
      if (process.env.MD_DAY_DEBUG) console.info(`team day: data and logs kept in ${root}`);
      else fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
