/**
 * Where a dispatcher instance listens, from its name. A dispatcher writes to the log as
 * `<instance id>@<host:port>` (the address agents and the API dial), so whoever reads the
 * log learns the active one's address from the writer of its OwnershipTaken.
 */

/** The address after the last '@' of an instance name; undefined when it names none. */
export const addressOfInstance = (instance: string | undefined): string | undefined => {
  if (!instance) return undefined;
  const at = instance.lastIndexOf('@');
  if (at < 0) return undefined;
  const address = instance.slice(at + 1).trim();
  return address === '' ? undefined : address;
};
