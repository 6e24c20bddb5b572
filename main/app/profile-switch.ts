// Switching profile: validate the new profile's settings, close the running workspace, open the new
// profile's, record it as active and say so. Also follows `merchant-desk connect --profile` run in
// another process (it rewrites active-profile.json). One switch at a time: a second waits for the first.
import fs from 'node:fs';
import { DeskError, messageOf } from '../errors.shared.js';
import { noticeOf } from './event-bus.js';
import { nest, words } from '../words/words.shared.js';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import {
  dataPaths,
  loadSettings,
  openProfileDatabase,
  readActiveProfile,
  updateSettings,
  writeActiveProfile,
  type Profile,
  type SettingsPatch,
} from '../settings/index.js';
import type { AppEventBus } from './event-bus.js';
import type { Workspace } from './workspace.js';
import { AppError } from './errors.js';

export interface ProfileSwitchOptions {
  dataDir: string;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  /** The running workspace. */
  current(): Workspace;
  /** Opens a workspace on a profile's database (connected before it returns; throws when it cannot start). */
  open(db: Db): Promise<Workspace>;
  /** Makes `ws` the running workspace. */
  replace(ws: Workspace): void;
}

export interface ProfileSwitcher {
  /** See Core.switchProfile. */
  switchProfile(profile: Profile, patch?: SettingsPatch): Promise<void>;
  /** See Core.reopenWorkspace. */
  reopen(): Promise<void>;
  /** Settles once no switch is in progress. */
  settled(): Promise<void>;
  /** Stops following the active profile and waits for a switch in progress. */
  close(): Promise<void>;
}

/**
 * Opens `profile`'s database with its settings (and the patch) checked and written, before anything is
 * closed: a refused switch leaves the current workspace running untouched. A profile opened for the first
 * time keeps who is working and their thresholds (not per environment) from `ws`.
 */
function openTarget(dataDir: string, profile: Profile, patch: SettingsPatch, ws: Workspace, clock: Clock): Db {
  const fresh = !fs.existsSync(dataPaths(dataDir, profile).db);
  const db = openProfileDatabase(dataDir, profile);
  try {
    const cur = loadSettings(ws.db);
    const carried: SettingsPatch = fresh
      ? {
          operatorName: cur.operatorName,
          staleAfterMs: cur.staleAfterMs,
          stalePendingAfterMs: cur.stalePendingAfterMs,
        }
      : {};
    updateSettings(db, { ...carried, ...patch, profile }, clock);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * `merchant-desk connect --profile` (another process) records a new active profile: follow it, a moment
 * after the file changes, and again after a switch in progress; a failed switch is said in a notice.
 */
function followActiveProfile(o: {
  dataDir: string;
  logger: Logger;
  events: AppEventBus;
  closed(): boolean;
  switching(): boolean;
  current(): Profile;
  switchTo(profile: Profile): Promise<void>;
}): { close(): void } {
  const { dataDir, logger } = o;
  let watcher: fs.FSWatcher | null = null;
  let followTimer: NodeJS.Timeout | null = null;
  const follow = () => {
    followTimer = null;
    if (o.closed()) return;
    let wanted: Profile;
    try {
      wanted = readActiveProfile(dataDir, logger);
    } catch (e) {
      logger.warn({ err: e }, 'cannot read the active profile');
      return;
    }
    if (o.switching()) {
      followTimer = setTimeout(follow, 100); // look again once the switch in progress is done
      return;
    }
    if (wanted === o.current()) return;
    logger.info({ profile: wanted }, 'the active profile was changed outside the app; switching');
    o.switchTo(wanted).catch((e: unknown) => {
      logger.error({ err: e }, 'could not switch to the profile chosen outside the app');
      o.events.emit(
        'notice',
        noticeOf(
          'error',
          words('app.notice.switchFailed', {
            profileId: `app.profile.${wanted}`,
            ...nest('reason', e instanceof DeskError ? e.words : undefined, messageOf(e)),
          }),
        ),
      );
    });
  };
  try {
    const activeProfileFile = path.basename(dataPaths(dataDir).activeProfile);
    watcher = fs.watch(dataDir, (_type, name) => {
      if (name !== activeProfileFile) return;
      if (followTimer) clearTimeout(followTimer);
      followTimer = setTimeout(follow, 100);
    });
    watcher.on('error', (e) => logger.warn({ err: e }, 'stopped watching the active profile'));
  } catch (e) {
    logger.warn(
      { err: e },
      'cannot watch the active profile; a profile chosen with connect applies when the app starts again',
    );
  }
  return {
    close() {
      watcher?.close();
      if (followTimer) clearTimeout(followTimer);
    },
  };
}

export function createProfileSwitcher(opts: ProfileSwitchOptions): ProfileSwitcher {
  const { dataDir, clock, logger, events } = opts;
  let switching: Promise<void> | null = null;
  let closed = false;

  async function settled(): Promise<void> {
    while (switching) await switching.catch(() => {});
  }

  async function switchProfile(profile: Profile, patch: SettingsPatch = {}): Promise<void> {
    await settled();
    if (closed) throw new AppError('conflict', 'the app is closing');
    const ws = opts.current();
    const from = loadSettings(ws.db).profile;
    if (profile === from) {
      if (Object.keys(patch).length) updateSettings(ws.db, patch, clock);
      return;
    }
    // Validate the new profile's settings (with the patch) before anything is closed.
    const db = openTarget(dataDir, profile, patch, ws, clock);
    await run(async () => {
      await restart(ws, db, `switching profile failed; staying on ${from}`, { profile });
      ws.db.close();
      writeActiveProfile(dataDir, profile);
      logger.info({ from, to: profile }, 'switched profile');
      events.emit('profile.switched', { profile });
      events.emit('notice', noticeOf('info', words('app.notice.switched', { profileId: `app.profile.${profile}` })));
      events.emit('status.changed', opts.current().appStatus());
    });
  }

  /** One switch or reopen at a time: `step` runs once the one in progress is done. */
  async function run(step: () => Promise<void>): Promise<void> {
    switching = step();
    try {
      await switching;
    } finally {
      switching = null;
    }
  }

  /**
   * Stops `ws`'s poller, receiver, sandbox, queue and team link (its db stays open, so handlers called
   * meanwhile still read a valid database) and starts a workspace on `db`; when that cannot start, `ws`'s
   * own database is opened again and the error thrown.
   */
  async function restart(ws: Workspace, db: Db, failed: string, context: object): Promise<void> {
    await ws.close({ keepDb: true });
    try {
      opts.replace(await opts.open(db));
    } catch (e) {
      logger.error({ err: e, ...context }, failed);
      opts.replace(await opts.open(ws.db));
      throw e;
    }
  }

  async function reopen(): Promise<void> {
    await settled();
    if (closed) throw new AppError('conflict', 'the app is closing');
    const ws = opts.current();
    const profile = loadSettings(ws.db).profile;
    await run(async () => {
      await restart(ws, ws.db, 'reopening the workspace failed', { profile });
      logger.info({ profile }, 'workspace reopened');
      events.emit('workspace.reopened', { profile });
      events.emit('status.changed', opts.current().appStatus());
    });
  }

  const following = followActiveProfile({
    dataDir,
    logger,
    events,
    closed: () => closed,
    switching: () => switching !== null,
    current: () => loadSettings(opts.current().db).profile,
    switchTo: (profile) => switchProfile(profile),
  });

  return {
    switchProfile,
    reopen,
    settled,
    close: async () => {
      closed = true;
      following.close();
      await switching?.catch(() => {});
    },
  };
}
