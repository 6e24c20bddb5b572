// One database per test file on a real PostgreSQL server shared by the whole run (see
// postgres-global.ts). Without the global set-up (another config, a script) the worker starts a
// server of its own and stops it when it exits.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from './postgres-server.js';

export type { PgServerInfo } from './postgres-server.js';

let serverPromise: Promise<PgServerInfo> | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sharedServer(stateDir: string, ownerPid: number): Promise<PgServerInfo> {
  const infoFile = path.join(stateDir, 'server.json');
  const errorFile = path.join(stateDir, 'server.error');
  let starter = false;
  try {
    fs.mkdirSync(path.join(stateDir, 'starting')); // atomic: exactly one test file starts the server
    starter = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (starter) {
    try {
      const info = await startServer({ ownerPid });
      fs.writeFileSync(`${infoFile}.tmp`, JSON.stringify(info), { mode: 0o600 });
      fs.renameSync(`${infoFile}.tmp`, infoFile);
      return info;
    } catch (e) {
      fs.writeFileSync(errorFile, (e as Error).message);
      throw e;
    }
  }
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(100)) {
    if (fs.existsSync(infoFile)) return JSON.parse(fs.readFileSync(infoFile, 'utf8')) as PgServerInfo;
    if (fs.existsSync(errorFile)) throw new Error(fs.readFileSync(errorFile, 'utf8'));
  }
  throw new Error('timed out waiting for another test file to start PostgreSQL');
}

async function ownServer(): Promise<PgServerInfo> {
  const info = await startServer();
  process.once('exit', () => stopServerSync(info.dir, info.binDir));
  return info;
}

/** The run's server, started on first use. */
export function testServer(): Promise<PgServerInfo> {
  if (!serverPromise) {
    let stateDir: string | undefined;
    let ownerPid = process.pid;
    try {
      stateDir = inject('pgStateDir');
      ownerPid = inject('pgOwnerPid');
    } catch {
      stateDir = undefined;
    }
    serverPromise = stateDir ? sharedServer(stateDir, ownerPid) : ownServer();
  }
  return serverPromise;
}

export interface TestDatabase {
  server: PgServerInfo;
  name: string;
  /** The superuser's URL for this database (set-up and checks "against the database itself"). */
  adminUrl: string;
  /** The URL a given login signs in with. */
  urlFor(login: string, password: string): string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file: call in beforeAll, drop() in afterAll. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = await testServer();
  const name = `md_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    server,
    name,
    adminUrl: serverUrl(server, name),
    urlFor: (login, password) => serverUrl(server, name, login, password),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
