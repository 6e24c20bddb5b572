import type { Core } from '../../app/core.js';
import type { appChannels } from '../contract/app.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk: named, not the whole Core. */
export type AppDeps = Pick<Core, 'appStatus' | 'dataDir' | 'settings' | 'shell' | 'version'>;

export const appHandlers = (core: AppDeps): HandlersFor<typeof appChannels> => ({
  'app.info': () => ({
    version: core.version,
    profile: core.settings().profile,
    shell: core.shell === 'electron' ? 'electron' : 'chromium',
    dataDir: core.dataDir,
  }),
  'app.status': () => core.appStatus(),
});
