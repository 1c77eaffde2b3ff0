import { resolveFileOwner, resolveTaskUser } from './task-user';

const files = {
  passwd: ['root:x:0:0:root:/root:/bin/bash', 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin', 'app:x:1000:1000::/home/app:/bin/sh'].join('\n'),
  group: ['root:x:0:', 'nogroup:x:65534:', 'app:x:1000:', 'staff:x:50:app'].join('\n'),
};

describe('the user a task runs as', () => {
  it('resolves a name to its uid, its own group and its home', () => {
    expect(resolveTaskUser('nobody', files)).toEqual({ uid: 65534, gid: 65534, home: '/nonexistent' });
    expect(resolveTaskUser('app', files)).toEqual({ uid: 1000, gid: 1000, home: '/home/app' });
  });

  it('takes a group by name or number after a colon', () => {
    expect(resolveTaskUser('app:staff', files)).toMatchObject({ uid: 1000, gid: 50 });
    expect(resolveTaskUser('app:7', files)).toMatchObject({ uid: 1000, gid: 7 });
  });

  it('takes numeric ids, known or not, as Docker does', () => {
    expect(resolveTaskUser('1000', files)).toMatchObject({ uid: 1000, gid: 1000 });
    expect(resolveTaskUser('4242:4242', files)).toEqual({ uid: 4242, gid: 4242 });
  });

  it('refuses what it cannot resolve, saying what to give instead', () => {
    expect(() => resolveTaskUser('ghost', files)).toThrow(/user "ghost" does not exist on this node/);
    expect(() => resolveTaskUser('app:ghosts', files)).toThrow(/group "ghosts" does not exist/);
    expect(() => resolveTaskUser('4242', files)).toThrow(/has no group on this node: give one, e\.g\. 4242:4242/);
    expect(() => resolveTaskUser(':1', files)).toThrow(/is empty/);
  });
});

describe('the owner of a config file', () => {
  it('takes ids as they are, names from the host, and empty as root; refuses a name the host does not have', () => {
    expect(resolveFileOwner({ uid: '0', gid: '0' }, files)).toEqual({ uid: 0, gid: 0 });
    expect(resolveFileOwner({ uid: '4242', gid: '' }, files)).toEqual({ uid: 4242, gid: 0 });
    expect(resolveFileOwner({ uid: 'app', gid: 'staff' }, files)).toEqual({ uid: 1000, gid: 50 });
    expect(() => resolveFileOwner({ uid: 'ghost', gid: '0' }, files)).toThrow(/config file's user "ghost" does not exist on this node/);
    expect(() => resolveFileOwner({ uid: '0', gid: 'ghosts' }, files)).toThrow(/config file's group "ghosts" does not exist/);
  });
});
