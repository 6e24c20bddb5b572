// vitest global set-up: one PostgreSQL server per test run, started lazily by the first test file that
// asks for a database (test/support/postgres.ts), so a run without team tests pays nothing. This side
// only makes the shared state folder and, at the end of the run, stops whatever was started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopServerSync, type PgServerInfo } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder through which test files share one lazily started server. */
    pgStateDir: string;
    /** The vitest main process: the server is an orphan once it is gone. */
    pgOwnerPid: number;
  }
}

export default function setup(project: TestProject): () => void {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-pg-run-'));
  project.provide('pgStateDir', stateDir);
  project.provide('pgOwnerPid', process.pid);
  return () => {
    const file = path.join(stateDir, 'server.json');
    if (fs.existsSync(file)) {
      const info = JSON.parse(fs.readFileSync(file, 'utf8')) as PgServerInfo;
      stopServerSync(info.dir, info.binDir);
    }
    fs.rmSync(stateDir, { recursive: true, force: true });
  };
}
