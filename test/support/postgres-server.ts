// A throw-away PostgreSQL server for tests: its own data folder and unix socket in a temp folder, a
// private TCP port on 127.0.0.1 only, SCRAM password sign-in (so a wrong or disabled login is refused
// the way it is in production). PostgreSQL refuses to run as root, so as root every server command
// runs as the unprivileged `postgres` user and the temp folder belongs to it.
// No vitest imports here: the global set-up (main vitest process) and the workers both use it.
import { execFile, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where a started server can be reached; plain data, so it can be handed between processes. */
export interface PgServerInfo {
  /** The temp folder holding data/, socket/, server.log and owner.pid; removed on stop. */
  dir: string;
  binDir: string;
  host: '127.0.0.1';
  port: number;
  superuser: string;
  password: string;
}

export const TEMP_PREFIX = 'md-pg-';

/** The folder of initdb/pg_ctl: PG_BIN_DIR, else pg_config --bindir, else the newest /usr/lib/postgresql/N (N >= 15). */
export function findPgBinDir(): string {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv) return fromEnv;
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .map(Number)
        .filter((v) => Number.isInteger(v) && v >= 15 && fs.existsSync(path.join(base, String(v), 'bin', 'initdb')))
        .sort((a, b) => b - a)
    : [];
  if (versions.length) return path.join(base, String(versions[0]), 'bin');
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) {
    const dir = pgConfig.stdout.trim();
    if (fs.existsSync(path.join(dir, 'initdb'))) return dir;
  }
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return path.dirname(fs.realpathSync(onPath.stdout.trim()));
  throw new Error(
    'PostgreSQL 15 or later is needed for the team tests and initdb was not found: run scripts/ensure-system-deps.sh ' +
      '(as root on Debian/Ubuntu) or install postgresql, or set PG_BIN_DIR to the folder holding initdb and pg_ctl',
  );
}

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export function postgresUser(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('running as root, and there is no `postgres` user to run PostgreSQL as (PostgreSQL refuses root)');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The command line for a server program: as `postgres` when we are root. */
export function asServerUser(binDir: string, program: string, args: string[]): [string, string[]] {
  const exe = path.join(binDir, program);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops the server in `dir` (if it runs) and removes the folder. Synchronous so it works in an exit handler. */
export function stopServerSync(dir: string, binDir = findPgBinDir()): void {
  const data = path.join(dir, 'data');
  if (fs.existsSync(path.join(data, 'postmaster.pid'))) {
    // immediate: the data is thrown away, so there is nothing to flush.
    const [cmd, args] = asServerUser(binDir, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
    spawnSync(cmd, args, { stdio: 'ignore' });
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Servers whose owning process died without stopping them (a killed test run): stop them and remove
 * their folders, so a crash does not leave servers running or folders piling up.
 */
export function reapOrphanedServers(): void {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = path.join(tmp, name);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being created right now, or not ours
    }
    if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
      try {
        stopServerSync(dir);
      } catch {
        // another run reaping the same folder at the same moment
      }
    }
  }
}

// Runs detached beside the server: once the owner is gone (even killed with SIGKILL, when no exit
// handler runs) it stops the server and removes its folder; once the folder is gone it just ends.
const WATCHDOG = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const [owner, dir, cmd, argsJson] = process.argv.slice(1);
const args = JSON.parse(argsJson);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const timer = setInterval(() => {
  if (!fs.existsSync(dir)) { clearInterval(timer); return; }
  if (alive(Number(owner))) return;
  clearInterval(timer);
  spawnSync(cmd, args, { stdio: 'ignore' });
  fs.rmSync(dir, { recursive: true, force: true });
}, 500);
`;

export function startWatchdog(ownerPid: number, dir: string, binDir: string): void {
  const [cmd, args] = asServerUser(binDir, 'pg_ctl', [
    '-D',
    path.join(dir, 'data'),
    '-m',
    'immediate',
    '-w',
    '-t',
    '30',
    'stop',
  ]);
  const child = spawn(process.execPath, ['-e', WATCHDOG, String(ownerPid), dir, cmd, JSON.stringify(args)], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
}

export interface StartOptions {
  /** The process whose death makes the server an orphan (default: this one). */
  ownerPid?: number;
  /** Start the watchdog that stops the server when the owner dies (default true). */
  watchdog?: boolean;
  /**
   * TLS on (ssl=on) with this certificate and key (PEM), and TCP sign-in over TLS only (pg_hba.conf
   * `hostssl`): the set-up the README asks of a team database on the office network.
   */
  tls?: { cert: string; key: string };
  /** Lines added to pg_hba.conf (e.g. `host replication all 127.0.0.1/32 scram-sha-256` for a standby). */
  hba?: string[];
  /** Settings added after the defaults (a later line wins): e.g. `synchronous_commit = on` for a primary. */
  config?: string[];
}

/**
 * Writes the server's certificate and key into its data folder (owned by the server's user, key mode 0600
 * as PostgreSQL demands) and, when it runs, reloads it: new connections get the new certificate.
 */
export async function setServerCertificate(dir: string, binDir: string, cert: string, key: string): Promise<void> {
  const data = path.join(dir, 'data');
  fs.writeFileSync(path.join(data, 'server.crt'), cert, { mode: 0o600 });
  fs.writeFileSync(path.join(data, 'server.key'), key, { mode: 0o600 });
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    for (const f of ['server.crt', 'server.key']) fs.chownSync(path.join(data, f), uid, gid);
  }
  if (fs.existsSync(path.join(data, 'postmaster.pid'))) {
    const [cmd, args] = asServerUser(binDir, 'pg_ctl', ['-D', data, 'reload']);
    await run(cmd, args);
  }
}

/** initdb + pg_ctl start in a fresh temp folder. The caller stops it with stopServerSync(info.dir). */
export async function startServer(options: StartOptions = {}): Promise<PgServerInfo> {
  reapOrphanedServers();
  const binDir = findPgBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), TEMP_PREFIX));
  fs.writeFileSync(path.join(dir, 'owner.pid'), String(options.ownerPid ?? process.pid));
  try {
    const data = path.join(dir, 'data');
    const socket = path.join(dir, 'socket');
    fs.mkdirSync(socket, { mode: 0o700 });
    const superuser = 'postgres';
    const password = crypto.randomBytes(18).toString('base64url');
    const pwfile = path.join(dir, 'pwfile');
    fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (isRoot()) {
      const { uid, gid } = postgresUser();
      for (const p of [dir, socket, pwfile]) fs.chownSync(p, uid, gid);
    }
    const [initCmd, initArgs] = asServerUser(binDir, 'initdb', [
      '-D',
      data,
      '-U',
      superuser,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--no-locale',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    await run(initCmd, initArgs);
    fs.rmSync(pwfile);
    // Password sign-in everywhere, TCP from 127.0.0.1 only: the same SCRAM exchange as production.
    fs.writeFileSync(
      path.join(data, 'pg_hba.conf'),
      `local all all scram-sha-256\n${options.tls ? 'hostssl' : 'host'} all all 127.0.0.1/32 scram-sha-256\n${(options.hba ?? []).map((l) => `${l}\n`).join('')}`,
    );
    if (options.tls) await setServerCertificate(dir, binDir, options.tls.cert, options.tls.key);

    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      fs.writeFileSync(
        path.join(data, 'postgresql.auto.conf'),
        [
          `listen_addresses = '127.0.0.1'`,
          `port = ${port}`,
          `unix_socket_directories = '${socket}'`,
          `password_encryption = 'scram-sha-256'`,
          `max_connections = 200`,
          ...(options.tls ? [`ssl = on`, `ssl_cert_file = 'server.crt'`, `ssl_key_file = 'server.key'`] : []),
          // A throw-away server: durability settings cost time and protect nothing here.
          `fsync = off`,
          `synchronous_commit = off`,
          `full_page_writes = off`,
          ...(options.config ?? []),
          '',
        ].join('\n'),
      );
      const [ctlCmd, ctlArgs] = asServerUser(binDir, 'pg_ctl', [
        '-D',
        data,
        '-l',
        path.join(dir, 'server.log'),
        '-w',
        '-t',
        '60',
        'start',
      ]);
      try {
        await run(ctlCmd, ctlArgs);
        if (options.watchdog !== false) startWatchdog(options.ownerPid ?? process.pid, dir, binDir);
        return { dir, binDir, host: '127.0.0.1', port, superuser, password };
      } catch (e) {
        lastError = e; // most likely the port was taken between freePort() and the bind: try another
      }
    }
    let log = '';
    try {
      log = fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-2000);
    } catch {
      // no log written
    }
    throw new Error(`PostgreSQL did not start: ${(lastError as Error).message}\n${log}`);
  } catch (e) {
    stopServerSync(dir, binDir);
    throw e;
  }
}

/** A connection URL for `user` on `database` of this server. */
export function serverUrl(
  info: PgServerInfo,
  database: string,
  user = info.superuser,
  password = info.password,
): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${info.host}:${info.port}/${encodeURIComponent(database)}`;
}
