// The service's RSA public key (a PEM file the merchant obtains from the service). It encrypts
// card_cipher and verifies rsa-signature headers. Loaded once, checked, described for Settings.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { ServiceKeyError } from './errors.js';

export interface ServicePublicKey {
  /** The PEM text as given (trimmed). */
  pem: string;
  key: crypto.KeyObject;
  /** Modulus length in bits (4096 for the sandbox). */
  bits: number;
  /** SHA-256 of the DER SubjectPublicKeyInfo, lower-case hex pairs joined by ':' (as `openssl dgst -sha256 -c`). */
  fingerprintSha256: string;
  /** Largest card JSON that fits one RSA PKCS#1 v1.5 block: key bytes - 11 (501 for 4096 bits). */
  maxPlaintextBytes: number;
}

/** Smallest modulus accepted: below this the key is not one a payment service would use. */
const MIN_KEY_BITS = 2048;

/** Parses and checks the service public key. Throws ServiceKeyError with a message that says what to fix. */
export function loadServicePublicKey(pemText: string): ServicePublicKey {
  if (typeof pemText !== 'string' || pemText.trim() === '') {
    throw new ServiceKeyError(
      'The service public key is empty: paste or choose the PEM file the service gave you (-----BEGIN PUBLIC KEY-----).',
    );
  }
  const pem = pemText.trim();
  // Never derive a public key from a private one here: a private key in this place is a mistake to report.
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new ServiceKeyError(
      "This is a private key. The app needs the service's PUBLIC key (-----BEGIN PUBLIC KEY-----); do not share private keys.",
    );
  }
  if (/-----BEGIN (X509 |TRUSTED )?CERTIFICATE-----/.test(pem)) {
    throw new ServiceKeyError(
      'This is a certificate, not a public key. Use the PEM public key file (-----BEGIN PUBLIC KEY-----), or extract it with `openssl x509 -pubkey -noout -in cert.pem`.',
    );
  }
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem)) {
    throw new ServiceKeyError('This is not a PEM public key: it should start with -----BEGIN PUBLIC KEY-----.');
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: pem, format: 'pem' });
  } catch (e) {
    throw new ServiceKeyError(
      'The public key PEM cannot be read (damaged or incomplete base64). Copy the whole file again.',
      { cause: e },
    );
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new ServiceKeyError(
      `The service public key must be an RSA key; this one is ${key.asymmetricKeyType ?? 'of an unknown type'}.`,
    );
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (bits === undefined) throw new ServiceKeyError('The RSA key size cannot be read from this public key.');
  if (bits < MIN_KEY_BITS) {
    throw new ServiceKeyError(
      `The service public key is only ${bits} bits; at least ${MIN_KEY_BITS} are required. Check you have the right file.`,
    );
  }
  const der = key.export({ type: 'spki', format: 'der' });
  const hex = crypto.createHash('sha256').update(der).digest('hex');
  const fingerprintSha256 = hex.match(/../g)!.join(':');
  return { pem, key, bits, fingerprintSha256, maxPlaintextBytes: Math.floor(bits / 8) - 11 };
}

/** Reads and checks a PEM file. A missing or unreadable file is a ServiceKeyError naming the path. */
export function loadServicePublicKeyFile(path: string): ServicePublicKey {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ServiceKeyError(
      code === 'ENOENT'
        ? `The service public key file ${path} does not exist.`
        : `The service public key file ${path} cannot be read (${code ?? 'error'}).`,
      { cause: e },
    );
  }
  try {
    return loadServicePublicKey(text);
  } catch (e) {
    if (e instanceof ServiceKeyError) throw new ServiceKeyError(`${path}: ${e.message}`, { cause: e.cause });
    throw e;
  }
}
