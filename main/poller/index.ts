export * from './poller.js';
export * from './sink.js';
