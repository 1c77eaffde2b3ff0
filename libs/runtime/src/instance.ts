/** Who this process is, for the envelope's `by.instance`: unique per running process. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

export const makeInstanceId = (component: string): string =>
  `${component}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
