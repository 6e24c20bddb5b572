// The test server itself: password sign-in only, loopback only, and nothing left behind, even when
// the run that started it was killed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { reapOrphanedServers, serverUrl, startServer, stopServerSync } from '../support/postgres-server.js';

const postmasterPid = (dir: string) =>
  Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
/** Running (a zombie awaiting its reaper counts as stopped). */
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // no /proc: trust the signal
  }
};

/** The postmaster removes its pid file a moment before it exits. */
async function stopped(pid: number): Promise<boolean> {
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (!running(pid)) return true;
  }
  return false;
}

describe('test PostgreSQL server', () => {
  it('signs in with SCRAM on 127.0.0.1 only, runs unprivileged, and stops leaving nothing behind', async () => {
    const info = await startServer();
    const pid = postmasterPid(info.dir);
    try {
      const c = new pg.Client({ connectionString: serverUrl(info, 'postgres') });
      await c.connect();
      const settings = await c.query(
        `SELECT current_setting('listen_addresses') AS listen, current_setting('password_encryption') AS enc,
                current_setting('server_version_num')::int >= 150000 AS v15, (SELECT rolpassword FROM pg_authid WHERE rolname = current_user) AS pw`,
      );
      await c.end();
      expect(settings.rows[0]).toMatchObject({ listen: '127.0.0.1', enc: 'scram-sha-256', v15: true });
      expect(settings.rows[0].pw).toMatch(/^SCRAM-SHA-256\$/);
      const hba = fs.readFileSync(path.join(info.dir, 'data', 'pg_hba.conf'), 'utf8');
      expect(hba).not.toMatch(/trust|peer|md5/);

      const wrong = new pg.Client({ connectionString: serverUrl(info, 'postgres', info.superuser, 'wrong') });
      await expect(wrong.connect()).rejects.toMatchObject({ code: '28P01' });

      if (process.getuid?.() === 0) {
        const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
        expect(String(fs.statSync(path.join(info.dir, 'data')).uid)).toBe(owner);
      }
    } finally {
      stopServerSync(info.dir, info.binDir);
    }
    expect(fs.existsSync(info.dir)).toBe(false);
    expect(await stopped(pid)).toBe(true);
  });

  it('a watchdog stops the server when its owner dies without stopping it', async () => {
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const info = await startServer({ ownerPid: owner.pid! });
    const pid = postmasterPid(info.dir);
    owner.kill('SIGKILL');
    expect(await stopped(pid)).toBe(true);
    for (const deadline = Date.now() + 5000; fs.existsSync(info.dir) && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(info.dir)).toBe(false);
  });

  it('a later run stops the server of a run that died and removes its folder', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    // As if its watchdog had been killed with it: the next run's reaper is the last line.
    const info = await startServer({ ownerPid: gone, watchdog: false });
    const pid = postmasterPid(info.dir);
    expect(running(pid)).toBe(true);
    reapOrphanedServers();
    expect(fs.existsSync(info.dir)).toBe(false);
    expect(await stopped(pid)).toBe(true);
  });
});
