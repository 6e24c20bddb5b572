export * from './secret-store.js';
export * from './app-secret.js';
