import { writeFileSync } from 'node:fs';
import { newSigningKey } from '@shoal/runtime';

/** Writes a new checkpoint signing key (mode 0600, never over an existing file); prints its fingerprint and public half. */
export const auditKeygen = (file: string): number => {
  const { key, pem } = newSigningKey();
  try {
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message} (the key is never written over an existing file)`);
  }
  process.stdout.write(`${file}\nfingerprint ${key.fingerprint}\npublic key  ${key.publicKey}\n`);
  return 0;
};
