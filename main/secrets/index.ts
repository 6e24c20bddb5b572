export * from './secret-store.js';
