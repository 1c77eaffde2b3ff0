/** A config's data as Docker's API carries it: base64, at most MAX_CONFIG_BYTES once decoded. */
import { Buffer } from 'node:buffer';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const isBase64 = (text: string): boolean => BASE64.test(text);

/** The bytes a well-formed base64 text decodes to, without decoding it. */
export const decodedLength = (text: string): number => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);

/** Whether two base64 texts hold the same bytes. */
export const sameBytes = (a: string, b: string): boolean => a === b || Buffer.from(a, 'base64').equals(Buffer.from(b, 'base64'));
