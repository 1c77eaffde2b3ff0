import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKafkaBroker, randomClusterId } from '../../../../infra/kafka/broker';
import { NO_BROKER_MESSAGE, chooseBroker } from './choose-broker';
import { dockerAnswers } from './docker-probe';
import { findTestBroker } from './find-broker';

const FETCH = join(__dirname, '..', '..', '..', '..', 'infra', 'kafka', 'fetch.sh');

describe('choosing the test broker', () => {
  it('takes KAFKA_BROKERS first, then a container on the test engine, then the local broker', () => {
    for (const javaPresent of [true, false]) {
      expect(chooseBroker({ kafkaBrokersEnv: '127.0.0.1:9092', engineAnswers: true, javaPresent })).toBe('env');
      expect(chooseBroker({ kafkaBrokersEnv: '127.0.0.1:9092', engineAnswers: false, javaPresent })).toBe('env');
    }
    expect(chooseBroker({ kafkaBrokersEnv: undefined, engineAnswers: true, javaPresent: true })).toBe('testcontainers');
    expect(chooseBroker({ kafkaBrokersEnv: '', engineAnswers: true, javaPresent: true })).toBe('testcontainers');
    expect(chooseBroker({ engineAnswers: false, javaPresent: true })).toBe('local');
    expect(chooseBroker({ kafkaBrokersEnv: '  ', engineAnswers: false, javaPresent: true })).toBe('local');
  });

  it('takes the local broker where an engine answers when SHOAL_TEST_BROKER=local asks for it', () => {
    expect(chooseBroker({ engineAnswers: true, localAsked: true, javaPresent: true })).toBe('local');
  });

  it('takes a local cluster of three nodes when SHOAL_TEST_BROKER=cluster3 asks for it, engine or not, unless KAFKA_BROKERS names one', () => {
    expect(chooseBroker({ engineAnswers: true, clusterAsked: true, javaPresent: true })).toBe('cluster3');
    expect(chooseBroker({ engineAnswers: false, clusterAsked: true, javaPresent: true })).toBe('cluster3');
    expect(chooseBroker({ kafkaBrokersEnv: '127.0.0.1:9092', engineAnswers: false, clusterAsked: true, javaPresent: false })).toBe('env');
  });

  it('names Java (and KAFKA_BROKERS) when there is no way to a broker, engine or not: the broker image is built from the JRE', () => {
    for (const engineAnswers of [true, false]) {
      expect(() => chooseBroker({ kafkaBrokersEnv: ' ', engineAnswers, javaPresent: false })).toThrow(NO_BROKER_MESSAGE);
    }
    expect(NO_BROKER_MESSAGE).toMatch(/Java 17 not found on PATH.*openjdk-17-jre-headless.*KAFKA_BROKERS=/);
  });
});

describe('the local broker', () => {
  it('makes cluster ids StorageTool takes: 16 bytes base64url, never a leading "-"', () => {
    for (let i = 0; i < 2_000; i++) {
      const id = randomClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    }
  });
});

describe('probing for a Docker engine', () => {
  let dir: string;
  let server: Server | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-docker-'));
  });
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  const serve = async (handler: Parameters<typeof createServer>[1]): Promise<string> => {
    const socket = join(dir, 'docker.sock');
    server = createServer(handler);
    await new Promise<void>((done) => server!.listen(socket, done));
    return `unix://${socket}`;
  };

  it('finds none behind a socket that does not exist', async () => {
    expect(await dockerAnswers({ DOCKER_HOST: `unix://${join(dir, 'nothing.sock')}` })).toBe(false);
  });

  it('finds one that answers OK to /_ping', async () => {
    const host = await serve((req, res) => res.end(req.url === '/_ping' ? 'OK' : 'no'));
    expect(await dockerAnswers({ DOCKER_HOST: host })).toBe(true);
  });

  it('gives up on one that does not answer, without hanging', async () => {
    const host = await serve(() => undefined);
    const started = Date.now();
    expect(await dockerAnswers({ DOCKER_HOST: host }, 300)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('fetch.sh says what is missing', () => {
  let bin: string;
  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'shoal-path-'));
    // Only what fetch.sh itself needs to get as far as its checks: no java, no mvn.
    for (const tool of ['bash', 'sed', 'dirname', 'head', 'mkdir', 'touch']) {
      const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, join(bin, tool));
    }
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  const run = () =>
    spawnSync(join(bin, 'bash'), [FETCH], {
      encoding: 'utf8',
      env: { PATH: bin, SHOAL_KAFKA_CACHE: join(bin, 'cache') },
    });

  it('names Java even when PATH holds nothing at all', () => {
    const empty = mkdtempSync(join(tmpdir(), 'shoal-empty-path-'));
    try {
      const bash = spawnSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();
      const result = spawnSync(bash, [FETCH], { encoding: 'utf8', env: { PATH: empty, SHOAL_KAFKA_CACHE: join(empty, 'cache') } });
      expect(result.status).toBe(3);
      expect(result.stderr).toMatch(/^Java 17 not found on PATH: install openjdk-17-jre-headless/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('names Java when there is none', () => {
    const result = run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Java 17 not found on PATH/);
    expect(result.stderr).toMatch(/openjdk-17-jre-headless/);
  });

  it('names Java when the one there is older than 17', () => {
    writeFileSync(join(bin, 'java'), '#!/bin/bash\necho \'openjdk version "11.0.24" 2024-07-16\' >&2\n');
    chmodSync(join(bin, 'java'), 0o755);
    const result = run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Java 17 not found on PATH \(found: openjdk version "11/);
  });

  it('names Maven when Java is there but Maven is not', () => {
    writeFileSync(join(bin, 'java'), '#!/bin/bash\necho \'openjdk version "17.0.15" 2025-04-15\' >&2\n');
    chmodSync(join(bin, 'java'), 0o755);
    const result = run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Maven not found on PATH/);
  });

  it('makes LocalKafkaBroker.start name Java when there is none', async () => {
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      await expect(LocalKafkaBroker.start()).rejects.toThrow(/Java 17 not found on PATH/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('makes findTestBroker name Java when neither KAFKA_BROKERS nor Java is there', async () => {
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      await expect(findTestBroker({ PATH: bin, SHOAL_TEST_ENGINE: `unix://${join(bin, 'no-docker.sock')}` })).rejects.toThrow(NO_BROKER_MESSAGE);
    } finally {
      process.env.PATH = path;
    }
  });
});
