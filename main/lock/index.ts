export * from './idle-lock.js';

export * from './unlocker.js';
export * from './errors.js';
export * from './passphrase-hash.js';
export * from './app-lock.js';
