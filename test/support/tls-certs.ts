// Certificates for TLS tests, made with openssl in a folder of the caller's: the team's CA and a server
// certificate it signed for 127.0.0.1 and localhost ("db"), an unrelated CA ("other-ca"), and a
// certificate of the team's CA for another host name ("wrong-name"). EC keys: quick to make.
// No vitest imports here: Playwright specs use it too.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  dir: string;
  /** PEM text by file name: team-ca.crt, other-ca.crt, db.crt, db.key, wrong-name.crt, wrong-name.key. */
  pem: Record<string, string>;
  /** The path of a file in `dir`. */
  file(name: string): string;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeTestCertificates(dir: string): TestCertificates {
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ca = (name: string) =>
    openssl([
      'req',
      '-x509',
      ...EC,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  const server = (name: string, signer: string, altNames: string) => {
    openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    fs.writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${altNames}\n`);
    openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${signer}.crt`,
      '-CAkey',
      `${signer}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ]);
  };
  ca('team-ca');
  ca('other-ca');
  server('db', 'team-ca', 'DNS:localhost,IP:127.0.0.1');
  server('wrong-name', 'team-ca', 'DNS:db.wrong.example');
  const pem: Record<string, string> = {};
  for (const f of ['team-ca.crt', 'other-ca.crt', 'db.crt', 'db.key', 'wrong-name.crt', 'wrong-name.key'])
    pem[f] = fs.readFileSync(path.join(dir, f), 'utf8');
  return { dir, pem, file: (name) => path.join(dir, name) };
}
