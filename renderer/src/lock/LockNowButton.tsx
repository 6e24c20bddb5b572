import { lockNow } from './useLock.js';

/** In the status bar: locks the app at once (also Ctrl+Shift+L). */
export function LockNowButton() {
  return (
    <button
      type="button"
      className="lock-now"
      onClick={() => void lockNow()}
      aria-keyshortcuts="Control+Shift+L"
      title="Lock now (Ctrl+Shift+L)"
    >
      Lock now
    </button>
  );
}
