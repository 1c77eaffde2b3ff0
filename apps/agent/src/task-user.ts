/**
 * The user a task runs as (its container's `user`, as `docker service create --user`
 * takes it): "name", "uid", "name:group" or "uid:gid", resolved against this host's
 * passwd and group files. A user that does not resolve is an error, never a silent root.
 * The owner of a config's file (its uid and gid) resolves the same way.
 */
export interface TaskIdentity {
  readonly uid: number;
  readonly gid: number;
  /** The user's home, when the passwd file names it. */
  readonly home?: string;
}

interface Entry {
  readonly name: string;
  readonly id: number;
  readonly gid?: number;
  readonly home?: string;
}

/** passwd lines "name:x:uid:gid:gecos:home:shell" or group lines "name:x:gid:members". */
const parse = (text: string, kind: 'passwd' | 'group'): Entry[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 3 && /^\d+$/.test(fields[2]!))
    .map((fields) => ({
      name: fields[0]!,
      id: Number(fields[2]),
      ...(kind === 'passwd' && /^\d+$/.test(fields[3] ?? '') ? { gid: Number(fields[3]) } : {}),
      ...(kind === 'passwd' && fields[5] ? { home: fields[5] } : {}),
    }));

const NUMBER = /^\d+$/;

/** An id given as a number, or the id of the entry `text` names (`what` says whose, in the error). */
const idOf = (text: string, entries: () => readonly Entry[], what: string): number => {
  if (NUMBER.test(text)) return Number(text);
  const found = entries().find((entry) => entry.name === text);
  if (!found) throw new Error(`${what} "${text}" does not exist on this node`);
  return found.id;
};

export const resolveTaskUser = (user: string, files: { readonly passwd: string; readonly group: string }): TaskIdentity => {
  const [who = '', group] = user.split(':', 2);
  if (who === '') throw new Error(`the task's user "${user}" is empty: give a name or a uid, e.g. nobody or 65534:65534`);
  const users = parse(files.passwd, 'passwd');
  const entry = NUMBER.test(who) ? users.find((u) => u.id === Number(who)) : users.find((u) => u.name === who);
  if (!entry && !NUMBER.test(who)) throw new Error(`the task's user "${who}" does not exist on this node`);
  const uid = entry?.id ?? Number(who);
  let gid: number;
  if (group === undefined || group === '') {
    if (entry?.gid === undefined) throw new Error(`the task's user ${who} has no group on this node: give one, e.g. ${who}:${who}`);
    gid = entry.gid;
  } else gid = idOf(group, () => parse(files.group, 'group'), "the task's group");
  return { uid, gid, ...(entry?.home ? { home: entry.home } : {}) };
};

/**
 * Who owns a file a task is given (a config's `uid` and `gid`, "0" unless the service said
 * otherwise, as Docker): ids as they are, names resolved against this host's passwd and
 * group files; empty is root, as Docker takes it. A name that does not resolve is an error.
 */
export const resolveFileOwner = (
  owner: { readonly uid: string; readonly gid: string },
  files: { readonly passwd: string; readonly group: string },
): { readonly uid: number; readonly gid: number } => {
  const ownerId = (value: string, kind: 'passwd' | 'group'): number => {
    const text = value.trim();
    return text === '' ? 0 : idOf(text, () => parse(kind === 'passwd' ? files.passwd : files.group, kind), `the config file's ${kind === 'passwd' ? 'user' : 'group'}`);
  };
  return { uid: ownerId(owner.uid, 'passwd'), gid: ownerId(owner.gid, 'group') };
};
