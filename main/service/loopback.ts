// Whether a host names this machine: "localhost", ::1 or 127.x.y.z (brackets and case ignored). The one
// test behind every "plain http / no TLS is fine on loopback" rule: the payment window's URLs (shell),
// a local sandbox's service URL (settings) and the team database's TLS (team).

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
