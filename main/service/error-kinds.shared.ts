// The kinds of service error (errors.ts), as a list the window's words and the tests can read too: a
// poll's failure is said by its kind (poller/poll-words.shared.ts), and the fuzz tests hold every
// failure to one of these. One list, so a new kind is said everywhere or fails to compile.
export const SERVICE_ERROR_KINDS = [
  'authentication',
  'validation',
  'forbidden',
  'not_found',
  'rate_limited',
  'unavailable',
  'network',
  'unreadable',
  'declined',
  'unknown_outcome',
] as const;

export type ServiceErrorKind = (typeof SERVICE_ERROR_KINDS)[number];
