// The `openssl` command as an independent tool: keys are made, signatures made and ciphertext
// decrypted by it, never by the Node code under test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface OpensslKey {
  privatePath: string;
  publicPath: string;
  publicPem: string;
}

export function openssl(args: string[], input?: Buffer | string): Buffer {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** An RSA key pair made by openssl in `dir`. */
export function opensslRsaKey(dir: string, bits: number, name = 'rsa'): OpensslKey {
  const privatePath = path.join(dir, `${name}.key.pem`);
  const publicPath = path.join(dir, `${name}.pub.pem`);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${bits}`, '-out', privatePath]);
  openssl(['pkey', '-in', privatePath, '-pubout', '-out', publicPath]);
  return { privatePath, publicPath, publicPem: fs.readFileSync(publicPath, 'utf8') };
}

/** base64 RSA-SHA512 PKCS#1 v1.5 signature by openssl. */
export function opensslSignSha512(privatePath: string, data: string): string {
  return openssl(['dgst', '-sha512', '-sign', privatePath], Buffer.from(data, 'utf8')).toString('base64');
}

/** Decrypts base64 RSA PKCS#1 v1.5 ciphertext with openssl. */
export function opensslDecryptPkcs1(privatePath: string, b64: string): Buffer {
  return openssl(
    ['pkeyutl', '-decrypt', '-inkey', privatePath, '-pkeyopt', 'rsa_padding_mode:pkcs1'],
    Buffer.from(b64, 'base64'),
  );
}

/** SHA-256 fingerprint of the DER public key, as `openssl dgst -sha256 -c` prints it. */
export function opensslFingerprint(publicPath: string): string {
  const der = openssl(['pkey', '-pubin', '-in', publicPath, '-outform', 'DER']);
  const out = openssl(['dgst', '-sha256', '-c'], der).toString('utf8');
  return out.trim().split('= ')[1]!;
}
