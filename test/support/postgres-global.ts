// vitest global set-up: one PostgreSQL server per test run, started lazily by the first test file that
// asks for a database (test/support/postgres.ts), so a run without team tests pays nothing. This side
// only makes the shared state folder and, at the end of the run, stops whatever was started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopServerSync, TEMP_PREFIX, type PgServerInfo } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder through which test files share one lazily started server. */
    pgStateDir: string;
    /** The vitest main process: the server is an orphan once it is gone. */
    pgOwnerPid: number;
  }
}

export default function setup(project: TestProject): () => void {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}run-`));
  // Lets a later run remove this folder (and stop the server) if this run is killed before teardown.
  fs.writeFileSync(path.join(stateDir, 'owner.pid'), String(process.pid));
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
