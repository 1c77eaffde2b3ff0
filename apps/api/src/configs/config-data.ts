/** Whether two configs' data (base64, as Docker's API carries it) hold the same bytes, however each is padded or written. */
import { Buffer } from 'node:buffer';

export const sameBytes = (a: string, b: string): boolean => a === b || Buffer.from(a, 'base64').equals(Buffer.from(b, 'base64'));
