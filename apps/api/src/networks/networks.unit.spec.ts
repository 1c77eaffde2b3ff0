import { EventBuilder, clusterInit, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import type { DockerNetwork } from '@shoal/docker-api';
import { NetworksModule } from './networks.module';

describe("Docker's /networks", () => {
  let api: StandaloneApi;
  const b = new EventBuilder('c1');

  beforeAll(async () => {
    api = await startStandaloneApi([NetworksModule]);
    await api.append([clusterInit(b)]);
  });
  afterAll(() => api.close());

  const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await api.get(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const create = (body: unknown) => call<{ Id: string; Warning: string; message: string }>('POST', '/networks/create', body);
  const names = (list: DockerNetwork[]): string[] => list.map((n) => n.Name).sort();

  it('creates an overlay network through the log and answers once it is applied', async () => {
    const before = await api.log.highWaterMark();
    const { status, body } = await create({ Name: 'backend', Driver: 'overlay', Labels: { tier: 'db' }, IPAM: { Driver: 'default', Config: [{ Subnet: '10.0.9.0/24', Gateway: '10.0.9.1' }] } });
    expect(status).toBe(201);
    expect(body.Id).toMatch(/^[0-9a-z]{25}$/);
    expect(await api.log.highWaterMark()).toBe(before + 1);
    expect(api.view.state.networks.get(body.Id)?.spec).toEqual({
      name: 'backend',
      driver: 'overlay',
      labels: { tier: 'db' },
      ipam: [{ subnet: '10.0.9.0/24', gateway: '10.0.9.1' }],
    });
  });

  it('inspects by id, name or id prefix, in Docker\'s shape', async () => {
    const byName = await call<DockerNetwork>('GET', '/networks/backend');
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({
      Name: 'backend',
      Scope: 'swarm',
      Driver: 'overlay',
      Ingress: false,
      Attachable: false,
      IPAM: { Driver: 'default', Config: [{ Subnet: '10.0.9.0/24', Gateway: '10.0.9.1' }] },
      Labels: { tier: 'db' },
    });
    const id = byName.body.Id;
    expect((await call<DockerNetwork>('GET', `/networks/${id}`)).body.Name).toBe('backend');
    expect((await call<DockerNetwork>('GET', `/networks/${id.slice(0, 6)}`)).body.Name).toBe('backend');
    const missing = await call<{ message: string }>('GET', '/networks/nope');
    expect(missing).toEqual({ status: 404, body: { message: 'network nope not found' } });
    // ?scope=swarm finds it by name too; any other scope by its id or an id prefix only, as a Docker manager.
    expect((await call<DockerNetwork>('GET', '/networks/backend?scope=swarm')).body.Id).toBe(id);
    for (const scope of ['local', 'global', 'bogus']) {
      expect(await call('GET', `/networks/backend?scope=${scope}`)).toEqual({ status: 404, body: { message: 'network backend not found' } });
      expect((await call<DockerNetwork>('GET', `/networks/${id.slice(0, 6)}?scope=${scope}`)).body.Id).toBe(id);
    }
  });

  it('shows a network without labels with Labels null, as a Docker manager shows a swarm network', async () => {
    expect((await create({ Name: 'unlabelled', Driver: 'overlay', Labels: {} })).status).toBe(201);
    expect((await call<DockerNetwork>('GET', '/networks/unlabelled')).body.Labels).toBeNull();
    expect((await call('DELETE', '/networks/unlabelled')).status).toBe(204);
  });

  it('creates the ingress network, only one', async () => {
    expect((await create({ Name: 'ingress', Driver: 'overlay', Ingress: true })).status).toBe(201);
    const second = await create({ Name: 'mesh', Driver: 'overlay', Ingress: true });
    expect(second).toEqual({ status: 409, body: { message: 'an ingress network already exists: ingress' } });
    expect((await call<DockerNetwork>('GET', '/networks/ingress')).body.Ingress).toBe(true);
  });

  it('shows the subnet the allocator gave a network that asked for none', async () => {
    const ingress = await call<DockerNetwork>('GET', '/networks/ingress');
    expect(ingress.body.IPAM.Config).toEqual([]);
    await api.append([b.event('NetworkAllocated', { id: ingress.body.Id, subnet: '10.255.0.0/16', gateway: '10.255.0.1' })]);
    expect((await call<DockerNetwork>('GET', '/networks/ingress')).body.IPAM.Config).toEqual([{ Subnet: '10.255.0.0/16', Gateway: '10.255.0.1' }]);
    const overlapping = await create({ Name: 'x', IPAM: { Config: [{ Subnet: '10.255.7.0/24' }] } });
    expect(overlapping.body.message).toMatch(/10\.255\.7\.0\/24 overlaps subnet 10\.255\.0\.0\/16 of network ingress/);
  });

  it('lists networks with Docker\'s filters', async () => {
    expect((await create({ Name: 'frontend', Driver: 'overlay', Attachable: true })).status).toBe(201);
    const all = await call<DockerNetwork[]>('GET', '/networks');
    expect(names(all.body)).toEqual(['backend', 'frontend', 'ingress']);
    const q = (filters: object) => `/networks?filters=${encodeURIComponent(JSON.stringify(filters))}`;
    // A swarm network's name matches exactly, as Docker asks SwarmKit by name.
    expect(names((await call<DockerNetwork[]>('GET', q({ name: { end: true } }))).body)).toEqual([]);
    expect(names((await call<DockerNetwork[]>('GET', q({ name: ['frontend', 'backend'] }))).body)).toEqual(['backend', 'frontend']);
    expect(names((await call<DockerNetwork[]>('GET', q({ scope: ['local'] }))).body)).toEqual([]);
    expect(names((await call<DockerNetwork[]>('GET', q({ label: ['tier=db'] }))).body)).toEqual(['backend']);
    expect(names((await call<DockerNetwork[]>('GET', q({ driver: { bridge: true } }))).body)).toEqual([]);
    expect(names((await call<DockerNetwork[]>('GET', q({ type: { custom: true }, scope: ['swarm'] }))).body)).toEqual(['backend', 'frontend', 'ingress']);
    const bad = await call<{ message: string }>('GET', q({ colour: ['red'] }));
    expect(bad).toEqual({ status: 400, body: { message: "Invalid filter 'colour'" } });
    expect((await call<{ message: string }>('GET', q({ type: ['weird'] }))).status).toBe(400);
  });

  it('refuses a second network of the same name with Docker\'s conflict, writing nothing', async () => {
    const before = await api.log.highWaterMark();
    expect(await create({ Name: 'backend', Driver: 'overlay' })).toEqual({ status: 409, body: { message: 'network with name backend already exists' } });
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it.each([
    [{}, /Name: /],
    [{ Name: 'bad name!' }, /^invalid Name: "bad name!" must be valid as a DNS name component/],
    [{ Name: 42 }, /^json: cannot unmarshal number into Go struct field NetworkCreateRequest\.Name of type string$/],
    [{ Name: 'x', Driver: 'bridge' }, /invalid Driver: driver "bridge" is not supported/],
    [{ Name: 'x', Ingress: true, Attachable: true }, /invalid Attachable: an ingress network cannot be attachable/],
    [{ Name: 'x', Internal: 'yes' }, /^json: cannot unmarshal string into Go struct field NetworkCreateRequest\.Internal of type bool$/],
    [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.0.300.0/24' }] } }, /^invalid IPAM\.Config\[0\]\.Subnet: must be an IPv4 subnet in CIDR notation/],
    [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.1.0.0/16', Gateway: 'gw' }] } }, /^invalid IPAM\.Config\[0\]\.Gateway: must be an IPv4 address$/],
    [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.1.0.0/16', Gateway: '10.2.0.1' }] } }, /invalid IPAM\.Config\[0\]\.Gateway: 10\.2\.0\.1 is not in subnet 10\.1\.0\.0\/16/],
    [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.0.0.0/16' }] } }, /invalid IPAM\.Config\[0\]\.Subnet: 10\.0\.0\.0\/16 overlaps subnet 10\.0\.9\.0\/24 of network backend/],
    [{ Name: 'x', Options: { encrypted: '' } }, /^invalid Options: driver options \(encrypted\) are not supported/],
    [{ Name: 'x', IPAM: { Options: { a: 'b' } } }, /^invalid IPAM\.Options: /],
    [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.1.0.0/16', AuxiliaryAddresses: { host: '10.1.0.5' } }] } }, /^invalid IPAM\.Config\[0\]\.AuxiliaryAddresses: /],
  ])('answers 400 with the field and the reason for %j, writing nothing', async (body, message) => {
    const before = await api.log.highWaterMark();
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it('refuses to create Docker\'s pre-defined networks', async () => {
    expect(await create({ Name: 'bridge', Driver: 'overlay' })).toEqual({ status: 403, body: { message: 'bridge is a pre-defined network and cannot be created' } });
    expect(await create({ Name: 'x', Driver: 'overlay', Scope: 'local' })).toEqual({ status: 403, body: { message: 'cannot downgrade network scope for overlay networks' } });
  });

  it('refuses to remove a network a service uses, removes it once unused', async () => {
    const web = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx' }, networks: [{ target: 'frontend' }] } });
    await api.append([b.event('ServiceCreated', { id: 's1', spec: web }, { instance: 'other-api' })]);
    const before = await api.log.highWaterMark();
    expect(await call('DELETE', '/networks/frontend')).toEqual({ status: 409, body: { message: 'network frontend is in use by service web' } });
    expect(await api.log.highWaterMark()).toBe(before);
    await api.append([b.event('ServiceRemoved', { id: 's1' }, { instance: 'other-api' })]);
    const removed = await call('DELETE', '/networks/frontend');
    expect(removed.status).toBe(204);
    expect([...api.view.state.networks.values()].map((n) => n.spec.name)).not.toContain('frontend');
    expect((await call('DELETE', '/networks/frontend')).status).toBe(404);
  });

  it('prunes the networks no service uses, never the ingress network, as the filters say', async () => {
    expect((await create({ Name: 'scratch', Driver: 'overlay', Labels: { keep: 'no' } })).status).toBe(201);
    expect((await create({ Name: 'scratch2', Driver: 'overlay' })).status).toBe(201);
    const web = serviceSpec('api', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx' }, networks: [{ target: 'scratch2' }] } });
    await api.append([b.event('ServiceCreated', { id: 's2', spec: web }, { instance: 'other-api' })]);
    const q = (filters: object) => `/networks/prune?filters=${encodeURIComponent(JSON.stringify(filters))}`;
    expect(await call('POST', q({ until: ['2000-01-01T00:00:00Z'] }))).toEqual({ status: 200, body: { NetworksDeleted: [] } });
    expect(await call('POST', q({ label: ['keep=no'] }))).toEqual({ status: 200, body: { NetworksDeleted: ['scratch'] } });
    expect(await call('POST', '/networks/prune')).toEqual({ status: 200, body: { NetworksDeleted: ['backend'] } });
    expect(names((await call<DockerNetwork[]>('GET', '/networks')).body)).toEqual(['ingress', 'scratch2']);
    expect((await call<{ message: string }>('POST', q({ until: ['soon'] }))).status).toBe(400);
  });
});
