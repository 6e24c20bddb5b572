import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { appChannels } from '../contract/app.js';
import type { HandlersFor } from './types.js';

/** The reads these handlers make of the desk. */
export type AppQueries = Pick<Queries, 'appInfo' | 'appStatus' | 'language'>;
export type AppOperations = Pick<Operations, 'setLanguage'>;

export const appHandlers = (ops: AppOperations, q: AppQueries): HandlersFor<typeof appChannels> => ({
  'app.info': () => {
    const info = q.appInfo();
    return {
      version: info.version,
      profile: info.profile,
      shell: info.shell === 'electron' ? 'electron' : 'chromium',
      dataDir: info.dataDir,
    };
  },
  'app.status': () => q.appStatus(),
  'app.language': () => ({ choice: q.language() }),
  'app.setLanguage': ({ choice }) => {
    ops.setLanguage(choice);
    return { choice };
  },
});
