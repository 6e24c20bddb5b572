import { lockNow } from './useLock.js';
import { useWords } from '../words/index.js';

/** In the status bar: locks the app at once (also Ctrl+Shift+L). */
export function LockNowButton() {
  const { t } = useWords();
  return (
    <button
      type="button"
      className="lock-now"
      onClick={() => void lockNow()}
      aria-keyshortcuts="Control+Shift+L"
      title={t('app.lock.nowTitle', { shortcut: t('app.nav.shortcut', { key: 'L' }) })}
    >
      {t('app.lock.now')}
    </button>
  );
}
