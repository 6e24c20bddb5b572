import type { Core } from '../../app/core.js';
import type { appChannels } from '../contract/app.js';
import type { HandlersFor } from './types.js';

export const appHandlers = (core: Core): HandlersFor<typeof appChannels> => ({
  'app.info': () => ({
    version: core.version,
    profile: core.settings().profile,
    shell: core.shell === 'electron' ? 'electron' : 'chromium',
    dataDir: core.dataDir,
  }),
  'app.status': () => core.appStatus(),
});
