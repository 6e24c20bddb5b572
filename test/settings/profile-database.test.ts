// Each profile has its own database; the active one is recorded in active-profile.json.
// Real SQLite files in a temp data folder; the app's composition root for adoption and following the CLI.
import fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import {
  dataPaths,
  loadSettings,
  openDataFolder,
  openProfileDatabase,
  readActiveProfile,
  updateSettings,
  writeActiveProfile,
} from '../../main/settings/index.js';
import { composeCore } from '../../main/app/core.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { silentLogger } from '../../main/log/index.js';
import { insertCollection } from '../collections/helpers.js';

/** A data folder as it was before profiles had their own databases: one merchant-desk.sqlite. */
function oldDataFolder(settings: Parameters<typeof updateSettings>[1] = {}): string {
  const dir = tempDir();
  const db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
  if (Object.keys(settings).length) updateSettings(db, settings);
  insertCollection(db, { reference: 'MD-OLD-0001' });
  db.close();
  return dir;
}

const references = (db: ReturnType<typeof openDataFolder>) =>
  (db.prepare('SELECT merchant_reference AS r FROM collections ORDER BY id').all() as { r: string }[]).map((x) => x.r);

function logText(dir: string): string {
  const logs = dataPaths(dir).logs;
  return fs.existsSync(logs)
    ? fs
        .readdirSync(logs)
        .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
        .join('\n')
    : '';
}

describe('profile workspaces', () => {
  it('a fresh data folder is the embedded profile, in its own folder', () => {
    const dir = tempDir();
    const db = openDataFolder(dir);
    expect(db.name).toBe(path.join(dir, 'profiles', 'embedded', 'merchant-desk.sqlite'));
    expect(loadSettings(db).profile).toBe('embedded');
    expect(readActiveProfile(dir)).toBe('embedded');
    db.close();
  });

  it('adopts an old single-file database as the database of the profile its settings name, once, and logs it', () => {
    const dir = oldDataFolder({ profile: 'sandbox', baseUrl: 'http://127.0.0.1:4010', operatorName: 'Amina' });
    const db = openDataFolder(dir);
    expect(db.name).toBe(path.join(dir, 'profiles', 'sandbox', 'merchant-desk.sqlite'));
    expect(references(db)).toEqual(['MD-OLD-0001']);
    expect(loadSettings(db)).toMatchObject({
      profile: 'sandbox',
      baseUrl: 'http://127.0.0.1:4010',
      operatorName: 'Amina',
    });
    db.close();
    expect(fs.existsSync(path.join(dir, 'merchant-desk.sqlite'))).toBe(false);
    expect(readActiveProfile(dir)).toBe('sandbox');
    expect(logText(dir)).toMatch(/adopted the single-file database as the sandbox profile's database/);
    // Opening again finds the same data where it now lives.
    const again = openDataFolder(dir);
    expect(references(again)).toEqual(['MD-OLD-0001']);
    again.close();
  });

  it('an old folder that never chose a profile becomes the embedded workspace; the app opens it', async () => {
    const dir = oldDataFolder();
    const core = await composeCore({ dataDir: dir, logger: silentLogger(), poll: false, receiver: false });
    onTestFinished(() => core.close());
    expect(core.settings().profile).toBe('embedded');
    expect(references(core.db)).toEqual(['MD-OLD-0001']);
    expect(core.db.name).toBe(dataPaths(dir, 'embedded').db);
  });

  it('keeps the recorded active profile when the adopted database belongs to another one', () => {
    const dir = oldDataFolder({ profile: 'sandbox', baseUrl: 'http://127.0.0.1:4010' });
    writeActiveProfile(dir, 'embedded');
    const db = openDataFolder(dir);
    expect(loadSettings(db).profile).toBe('embedded');
    expect(references(db)).toEqual([]);
    db.close();
    const sandbox = openProfileDatabase(dir, 'sandbox');
    expect(references(sandbox)).toEqual(['MD-OLD-0001']);
    sandbox.close();
  });

  it('an unreadable active-profile.json means embedded, and loses nothing', () => {
    const dir = tempDir();
    const sb = openProfileDatabase(dir, 'sandbox');
    insertCollection(sb, { reference: 'MD-SB-0001' });
    sb.close();
    fs.writeFileSync(dataPaths(dir).activeProfile, '{"profile": "production"}');
    expect(readActiveProfile(dir)).toBe('embedded');
    writeActiveProfile(dir, 'sandbox');
    expect(JSON.parse(fs.readFileSync(dataPaths(dir).activeProfile, 'utf8'))).toEqual({ profile: 'sandbox' });
    const db = openDataFolder(dir);
    expect(references(db)).toEqual(['MD-SB-0001']);
    db.close();
  });

  // Issue 39: the file is read whole, and parsed, only within what {"profile": "..."} could ever be.
  it('an active-profile.json nested deep or larger than it could be means embedded, with a warning', () => {
    const dir = tempDir();
    const warned: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          warned.push(String(chunk));
          cb();
        },
      }),
    );
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      dataPaths(dir).activeProfile,
      `{"profile": "sandbox", "x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    );
    expect(readActiveProfile(dir, logger)).toBe('embedded');
    fs.writeFileSync(dataPaths(dir).activeProfile, `{"profile": "sandbox", "x": "${'y'.repeat(10_000)}"}`);
    expect(readActiveProfile(dir, logger)).toBe('embedded');
    expect(warned).toHaveLength(2);
    writeActiveProfile(dir, 'sandbox');
    expect(readActiveProfile(dir, logger)).toBe('sandbox');
  });

  it('the running app follows a profile chosen outside it (merchant-desk connect)', async () => {
    const dir = tempDir();
    const core = await composeCore({ dataDir: dir, logger: silentLogger(), poll: false, receiver: false });
    onTestFinished(() => core.close());
    const changed = new Promise<unknown>((resolve) =>
      pushToRenderer(core.events, (e, p) => e === 'app.profileChanged' && resolve(p)),
    );
    // What connect does: the profile's own settings first, then the active profile.
    const sb = openProfileDatabase(dir, 'sandbox');
    updateSettings(sb, { profile: 'sandbox', baseUrl: 'http://127.0.0.1:9' });
    insertCollection(sb, { reference: 'MD-SB-0001' });
    sb.close();
    writeActiveProfile(dir, 'sandbox');
    expect(await changed).toEqual({ profile: 'sandbox' });
    expect(core.settings()).toMatchObject({ profile: 'sandbox', baseUrl: 'http://127.0.0.1:9' });
    expect(references(core.db)).toEqual(['MD-SB-0001']);
    expect(core.embedded()).toBeNull();
  });
});
