/**
 * A follower reads on through what its brokers do. Whose connection stops answering — open,
 * but silent, as a connection can be left after a broker's restart — starts over on fresh
 * connections: the broker here is the test's own, reached only through a proxy on loopback
 * that it advertises, so that the test can freeze every connection open at one moment while
 * new ones still pass. Whose partition leader is killed, on a cluster of three of the test's
 * own, finds the new leader.
 */
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { logLevel } from 'kafkajs';
import { LocalKafkaBroker, LocalKafkaCluster, eventually, freePorts } from '@shoal/testing';
import { KafkaEventLog } from './kafka-event-log';
import { STALL_MS } from './partition-reader';

/** Forwards 127.0.0.1:<port> to the broker; freeze() stops every connection open now, in both directions, without closing it. */
class FreezingProxy {
  private readonly pairs: [Socket, Socket][] = [];
  private constructor(private readonly server: Server) {}

  static async start(port: number, target: number): Promise<FreezingProxy> {
    const server = createServer();
    const proxy = new FreezingProxy(server);
    server.on('connection', (client) => {
      const upstream = connect(target, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      const quiet = () => undefined;
      client.on('error', quiet);
      upstream.on('error', quiet);
      proxy.pairs.push([client, upstream]);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return proxy;
  }

  freeze(): number {
    const frozen = this.pairs.splice(0);
    for (const [client, upstream] of frozen) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.frozen.push(...frozen);
    return frozen.length;
  }

  private readonly frozen: [Socket, Socket][] = [];

  async stop(): Promise<void> {
    for (const [client, upstream] of [...this.pairs, ...this.frozen]) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }
}

jest.setTimeout(180_000);

/** A follow of `topic` on `brokers` from offset 0, once r0…r2 are written and followed: `seen` fills as it reads on. */
const followingThreeRecords = async (brokers: readonly string[], topic: string) => {
  const logs: KafkaEventLog[] = [];
  const open = async (clientId: string) => {
    const log = await KafkaEventLog.open({ brokers: [...brokers], topic, clientId, logLevel: logLevel.NOTHING });
    logs.push(log);
    return log;
  };
  const writer = await open('before');
  await writer.append([0, 1, 2].map((i) => ({ key: 'c1', value: `r${i}` })));
  const seen: string[] = [];
  const follower = (await open('follower')).follow(0, (batch) => void seen.push(...batch.map((record) => record.value)), {});
  await eventually('the first records are followed', () => (seen.length === 3 ? true : undefined), 30_000);
  return {
    open,
    writer,
    seen,
    /** The next three records have been read (r3…r5, with the first three before them). */
    untilSixRead: (what: string) => eventually(what, () => (seen.length === 6 ? true : undefined), 60_000),
    close: async () => {
      await follower.stop();
      await Promise.all(logs.map((log) => log.close().catch(() => undefined)));
    },
  };
};

describe('a follower on Kafka whose connection goes silent', () => {
  let broker: LocalKafkaBroker;
  let proxy: FreezingProxy;
  let address: string;
  beforeAll(async () => {
    const [brokerPort, controllerPort, proxyPort] = await freePorts(3);
    proxy = await FreezingProxy.start(proxyPort!, brokerPort!);
    address = `127.0.0.1:${proxyPort}`;
    broker = await LocalKafkaBroker.start({
      ports: { broker: brokerPort!, controller: controllerPort! },
      serverProperties: [`advertised.listeners=PLAINTEXT://${address}`],
    });
  });
  afterAll(async () => {
    await proxy?.stop();
    await broker?.stop();
  });

  it('gives up the silent fetch after its deadline and reads on over fresh connections', async () => {
    const follow = await followingThreeRecords([address], 'silent.events');

    // Every connection open now goes silent: the follower's, mid long poll, among them.
    expect(proxy.freeze()).toBeGreaterThan(0);
    const frozenAt = Date.now();
    const after = await follow.open('after');
    await after.append([3, 4, 5].map((i) => ({ key: 'c1', value: `r${i}` })));
    await follow.untilSixRead('the follower reads the records written after the freeze');
    // Within the deadline and a reconnect, well before kafkajs's own request timeout (30 s) would tell.
    expect(Date.now() - frozenAt).toBeLessThan(STALL_MS + 12_000);
    expect(follow.seen).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    await follow.close();
  });
});

describe('a follower on a cluster of three whose partition leader is killed', () => {
  let cluster: LocalKafkaCluster;
  beforeAll(async () => {
    cluster = await LocalKafkaCluster.start();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('finds the new leader and reads on', async () => {
    const topic = 'leader-killed.events';
    const follow = await followingThreeRecords(cluster.brokers, topic);

    const { leader, replicas } = await cluster.partition(topic);
    expect(replicas).toHaveLength(3);
    await cluster.kill(leader);
    await eventually('another node leads the partition', async () => ((await cluster.partition(topic).catch(() => undefined))?.leader ?? leader) !== leader || undefined, 60_000);
    await follow.writer.append([3, 4, 5].map((i) => ({ key: 'c1', value: `r${i}` })));
    await follow.untilSixRead('the follower reads the records written after the leader died');
    expect(follow.seen).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    await follow.close();
  });
});
