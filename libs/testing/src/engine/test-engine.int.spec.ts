/**
 * The run's test engine as tests rely on it: in swarm mode on 127.0.0.1, with the offline
 * images, and Testcontainers working on it (a network of the test's own, a GenericContainer
 * with a wait strategy, a port published on loopback only, a second container reaching the
 * first by its alias), each stopped explicitly.
 */
import { request } from 'node:http';
import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import { GenericContainer, Wait } from 'testcontainers';
import { engineDocker } from './engine-docker';
import { TestcontainersScope, startLoopbackNetwork, useTestEngineForTestcontainers } from './testcontainers';
import { BUSYBOX_IMAGE, WEB_IMAGE, WEB_INDEX_TEXT } from './test-images';

const httpGet = (url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });

describe('the test engine', () => {
  const host = useTestEngineForTestcontainers();
  const scope = new TestcontainersScope();
  let network: StartedNetwork;
  let web: StartedTestContainer;

  beforeAll(async () => {
    network = scope.add(await startLoopbackNetwork());
    web = scope.add(
      await new GenericContainer(WEB_IMAGE)
        .withNetwork(network)
        .withNetworkAliases('web')
        .withExposedPorts(80)
        .withWaitStrategy(Wait.forHttp('/', 80).forStatusCode(200))
        .start(),
    );
  });
  afterAll(() => scope.stop());

  it('is a swarm manager on 127.0.0.1', () => {
    const [state, address, control] = engineDocker(host, ['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.NodeAddr}} {{.Swarm.ControlAvailable}}']).trim().split(' ');
    expect({ state, address, control }).toEqual({ state: 'active', address: '127.0.0.1', control: 'true' });
  });

  it('has the offline test images', () => {
    const images = engineDocker(host, ['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}']).split('\n');
    expect(images).toEqual(expect.arrayContaining([BUSYBOX_IMAGE, WEB_IMAGE]));
  });

  it('serves shoal-test/web on a port published on loopback only', async () => {
    const port = web.getMappedPort(80);
    const bindings = JSON.parse(engineDocker(host, ['inspect', '--format', '{{json .NetworkSettings.Ports}}', web.getId()])) as Record<string, { HostIp: string; HostPort: string }[]>;
    expect(bindings['80/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: String(port) }]);
    const answer = await httpGet(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(WEB_INDEX_TEXT);
  });

  it('publishes a container on its default bridge on loopback only too', async () => {
    const plain = scope.add(await new GenericContainer(WEB_IMAGE).withExposedPorts(80).withWaitStrategy(Wait.forHttp('/', 80)).start());
    const bindings = JSON.parse(engineDocker(host, ['inspect', '--format', '{{json .NetworkSettings.Ports}}', plain.getId()])) as Record<string, { HostIp: string }[]>;
    expect(bindings['80/tcp']?.map((binding) => binding.HostIp)).toEqual(['127.0.0.1']);
    expect((await httpGet(`http://127.0.0.1:${plain.getMappedPort(80)}/`)).body).toContain(WEB_INDEX_TEXT);
  });

  it('lets a container on the network the test made reach shoal-test/web by its alias', async () => {
    const client = scope.add(await new GenericContainer(BUSYBOX_IMAGE).withNetwork(network).withCommand(['sleep', '300']).start());
    const fetched = await client.exec(['wget', '-q', '-O', '-', 'http://web/']);
    expect(fetched.exitCode).toBe(0);
    expect(fetched.output).toContain(WEB_INDEX_TEXT);
  });
});
