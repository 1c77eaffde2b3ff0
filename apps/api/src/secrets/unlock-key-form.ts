/**
 * Whether a text has the form of an unlock key as SwarmKit reads one before it tries it
 * (encryption.ParseHumanReadableKey): `SWMKEY-1-` and base64 without padding, of any length
 * Go's RawStdEncoding decodes (which skips line breaks). A text not of that form is refused
 * before anything is tried (400, "invalid key string"); one of that form is tried against
 * the lock, and one that does not open it is the wrong key (401), whatever its length. The
 * keyring's own reading (libs/runtime's parseUnlockKey: exactly 32 bytes) comes after this
 * one, so a short key of the form is refused as the wrong key, as SwarmKit refuses it.
 */
const PREFIX = 'SWMKEY-1-';
/** Base64's standard alphabet, no padding. */
const RAW_BASE64 = /^[A-Za-z0-9+/]*$/;

export const hasUnlockKeyForm = (text: string): boolean => {
  if (!text.startsWith(PREFIX)) return false;
  const body = text.slice(PREFIX.length).replace(/[\r\n]/g, '');
  // One character past a whole group of four carries only six bits: no byte, an error to Go.
  return RAW_BASE64.test(body) && body.length % 4 !== 1;
};
