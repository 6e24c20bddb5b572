// A throw-away PgBouncer in front of the test PostgreSQL (postgres-server.ts): its ini and auth file in a
// temp folder, a free port on 127.0.0.1, SCRAM sign-in checked against the same verifiers the server holds
// (read from pg_authid as superuser, so PgBouncer passes the client's SCRAM keys on to the server, as in
// production). PgBouncer refuses to run as root, so as root it runs as the `postgres` user. A detached
// watchdog stops it if the owning process dies without stopping it (even from SIGKILL).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serverUrl, type PgServerInfo } from './postgres-server.js';

export type PoolMode = 'session' | 'transaction';

export interface PgBouncer {
  host: '127.0.0.1';
  port: number;
  mode: PoolMode;
  /** PgBouncer's own log (its warnings, e.g. "got packet 'A' from server when not linked"). */
  log(): string;
  /** A URL through PgBouncer to `database`, with no login (as a desk's settings hold it). */
  url(database: string): string;
  /** Reads the logins and their SCRAM verifiers again (after operators were added) and reloads. */
  reloadUsers(): Promise<void>;
  stop(): Promise<void>;
}

/** The pgbouncer program: PGBOUNCER, else on PATH, else Debian's /usr/sbin/pgbouncer. */
export function findPgBouncer(): string {
  if (process.env.PGBOUNCER) return process.env.PGBOUNCER;
  const onPath = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim();
  if (fs.existsSync('/usr/sbin/pgbouncer')) return '/usr/sbin/pgbouncer';
  throw new Error(
    'PgBouncer is needed for the pooler tests and was not found: run scripts/ensure-system-deps.sh (as root on ' +
      'Debian/Ubuntu) or install pgbouncer, or set PGBOUNCER to its path',
  );
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function postgresIds(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error('running as root, and there is no `postgres` user');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether `child` listens on `port` within 10 s (false once it has exited). */
async function listening(child: ChildProcess, port: number): Promise<boolean> {
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (child.exitCode !== null) return false;
    if (await accepts(port)) return true;
  }
  return false;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The auth file: every login that has a password, with its verifier as the server stores it. */
async function writeUsers(server: PgServerInfo, file: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await c.connect();
  try {
    const r = await c.query<{ rolname: string; rolpassword: string }>(
      'SELECT rolname, rolpassword FROM pg_authid WHERE rolpassword IS NOT NULL ORDER BY rolname',
    );
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    fs.writeFileSync(file, r.rows.map((x) => `${q(x.rolname)} ${q(x.rolpassword)}\n`).join(''), { mode: 0o600 });
  } finally {
    await c.end();
  }
  if (isRoot()) {
    const { uid, gid } = postgresIds();
    fs.chownSync(file, uid, gid);
  }
}

// Beside PgBouncer: once the owner is gone it stops PgBouncer and removes the folder.
const WATCHDOG = `
const fs = require('node:fs');
const [owner, pid, dir] = process.argv.slice(1).map((x, i) => (i < 2 ? Number(x) : x));
const alive = (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const timer = setInterval(() => {
  if (!alive(pid)) { clearInterval(timer); return; }
  if (alive(owner)) return;
  clearInterval(timer);
  try { process.kill(pid, 'SIGTERM'); } catch {}
  fs.rmSync(dir, { recursive: true, force: true });
}, 500);
`;

/** Starts PgBouncer in `mode` in front of `server`; stop() stops it and removes its folder. */
export async function startPgBouncer(server: PgServerInfo, mode: PoolMode): Promise<PgBouncer> {
  const exe = findPgBouncer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-pgbouncer-'));
  const ids = isRoot() ? postgresIds() : null;
  if (ids) fs.chownSync(dir, ids.uid, ids.gid);
  const users = path.join(dir, 'userlist.txt');
  const logFile = path.join(dir, 'pgbouncer.log');
  await writeUsers(server, users);

  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  const running = (child: ChildProcess, port: number): PgBouncer => {
    spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(child.pid), dir], {
      detached: true,
      stdio: 'ignore',
    }).unref();
    return {
      host: '127.0.0.1',
      port,
      mode,
      log,
      url: (database) => `postgres://127.0.0.1:${port}/${encodeURIComponent(database)}`,
      async reloadUsers() {
        await writeUsers(server, users);
        // PgBouncer logs the signal when its handler runs, which re-reads the auth file then and there.
        const reloads = () => (log().match(/got SIGHUP, re-reading config/g) ?? []).length;
        const before = reloads();
        child.kill('SIGHUP');
        for (const end = Date.now() + 10_000; reloads() === before; await new Promise((r) => setTimeout(r, 20)))
          if (Date.now() > end) throw new Error('PgBouncer did not reload its auth file');
      },
      async stop() {
        if (child.exitCode === null) {
          const gone = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await gone;
        }
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  };
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const ini = path.join(dir, 'pgbouncer.ini');
      fs.writeFileSync(
        ini,
        [
          '[databases]',
          `* = host=${server.host} port=${server.port}`,
          '[pgbouncer]',
          'listen_addr = 127.0.0.1',
          `listen_port = ${port}`,
          'unix_socket_dir =',
          'auth_type = scram-sha-256',
          `auth_file = ${users}`,
          `pool_mode = ${mode}`,
          `logfile = ${logFile}`,
          'max_client_conn = 500',
          'default_pool_size = 40',
          // After the server went away, try it again after 1 s rather than PgBouncer's default 15 s.
          'server_login_retry = 1',
          '',
        ].join('\n'),
      );
      const child = spawn(exe, [ini], { stdio: 'ignore', ...(ids ? { uid: ids.uid, gid: ids.gid } : {}) });
      if (await listening(child, port)) return running(child, port);
      if (child.exitCode === null) child.kill('SIGKILL'); // the port was taken between freePort() and the bind
    }
    throw new Error(`PgBouncer did not start:\n${log()}`);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
