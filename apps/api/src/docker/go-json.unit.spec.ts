import { goDecode } from './go-json';
import { fromDockerServiceSpec } from './service-mapper';
import type { DockerServiceSpec } from './docker-types';

describe("goDecode: Docker's bodies as Go decodes them", () => {
  it('matches keys case-insensitively, an exact key winning over a folded one', () => {
    expect(goDecode({ name: 'web', mode: { replicated: { replicas: 3 } }, NAME: 'x', Name: 'exact' })).toEqual({
      Name: 'exact',
      Mode: { Replicated: { Replicas: 3 } },
    });
  });

  it('reads null as not set, in objects at any depth', () => {
    expect(goDecode({ Raft: { KeepOldSnapshots: null, SnapshotInterval: 10 }, Labels: null })).toEqual({ Raft: { SnapshotInterval: 10 } });
  });

  it('keeps the keys of map-valued fields (labels, options, sysctls) as they are', () => {
    expect(goDecode({ labels: { mode: 'a', Name: 'b' }, TaskTemplate: { ContainerSpec: { sysctls: { 'net.core.somaxconn': '1024' } } } })).toEqual({
      Labels: { mode: 'a', Name: 'b' },
      TaskTemplate: { ContainerSpec: { Sysctls: { 'net.core.somaxconn': '1024' } } },
    });
  });

  it('keeps keys that name no field, for the reader to ignore', () => {
    expect(goDecode({ Unknown: 1, name: 'a' })).toEqual({ Unknown: 1, Name: 'a' });
  });

  it('a lowercase ServiceSpec reads as its Docker spelling', () => {
    const spec = fromDockerServiceSpec(goDecode({ name: 'web', taskTemplate: { containerSpec: { image: 'nginx' } }, mode: { replicated: { replicas: 2 } } }) as DockerServiceSpec);
    expect(spec).toMatchObject({ name: 'web', mode: { kind: 'replicated', replicas: 2 }, task: { container: { image: 'nginx' } } });
  });
});
