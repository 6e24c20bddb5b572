export { LockScreen } from './LockScreen.js';
export { LockNowButton } from './LockNowButton.js';
export { useLock, lockNow } from './useLock.js';
