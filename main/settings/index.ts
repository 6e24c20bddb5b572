export * from './settings.js';
export * from './paths.js';
export * from './service-key.js';
export * from './connection.js';
export * from './data-folder.js';
export * from './profile-database.js';
export * from './key-binding.js';
export * from './audit.js';
