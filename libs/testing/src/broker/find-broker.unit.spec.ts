import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseBroker } from './choose-broker';
import { dockerAnswers } from './docker-probe';

const FETCH = join(__dirname, '..', '..', '..', '..', 'infra', 'kafka', 'fetch.sh');

describe('choosing the test broker', () => {
  it('takes KAFKA_BROKERS first, then a Docker engine, then the local broker', () => {
    expect(chooseBroker({ kafkaBrokersEnv: '127.0.0.1:9092', dockerAnswers: true })).toBe('env');
    expect(chooseBroker({ kafkaBrokersEnv: '', dockerAnswers: true })).toBe('testcontainers');
    expect(chooseBroker({ dockerAnswers: false })).toBe('local');
    expect(chooseBroker({ kafkaBrokersEnv: '  ', dockerAnswers: false })).toBe('local');
  });

  it('finds no Docker engine behind a socket that does not exist, without hanging', async () => {
    expect(await dockerAnswers({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' })).toBe(false);
  });
});

describe('fetch.sh says what is missing', () => {
  let bin: string;
  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'shoal-path-'));
    for (const tool of ['bash', 'sed', 'dirname', 'head', 'ls', 'mkdir', 'touch']) {
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

  it('names Java when there is none', () => {
    const result = run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Java 17 not found on PATH/);
  });

  it('names Maven when Java is there but Maven is not', () => {
    writeFileSync(join(bin, 'java'), '#!/bin/bash\necho \'openjdk version "17.0.15" 2025-04-15\' >&2\n');
    chmodSync(join(bin, 'java'), 0o755);
    const result = run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Maven not found on PATH/);
  });
});
