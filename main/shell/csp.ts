// The renderer's Content-Security-Policy, sent as a header by both shells (index.html carries the same
// in a meta tag). Nothing inline, nothing remote; connect only to the app's own origin.
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "worker-src 'none'",
  "manifest-src 'none'",
].join('; ');
