/** Docker's query parameters: booleans ("1", "true"), and the object version an update is based on. */
import { BadInputError } from './bad-input';

export const queryFlag = (raw: string | undefined): boolean => raw !== undefined && /^(1|true|yes)$/i.test(raw.trim());

/** `?version=N`: the version the client read, so a concurrent change is refused as out of sequence. */
export const queryVersion = (raw: string | undefined): number => {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) {
    throw new BadInputError(`invalid version: the "version" query parameter must be the object's Version.Index, not "${raw ?? ''}"`);
  }
  return Number(raw);
};
