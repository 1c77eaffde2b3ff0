import { NO_ENGINE_MESSAGE } from './find-engine';
import { dockerdArgs } from './local-engine';
import { testEngine } from './test-engine';

describe('testEngine()', () => {
  it('returns the engine global setup found', () => {
    expect(testEngine({ SHOAL_TEST_ENGINE: 'unix:///tmp/x/docker.sock' })).toBe('unix:///tmp/x/docker.sock');
  });

  it('throws, saying how to get an engine, where there is none', () => {
    expect(() => testEngine({})).toThrow(`this test needs a Docker engine: ${NO_ENGINE_MESSAGE}`);
    expect(NO_ENGINE_MESSAGE).toMatch(/bash infra\/docker\/install\.sh.*SHOAL_TEST_ENGINE=unix:\/\//);
  });

  it('throws with the reason global setup could not start one', () => {
    expect(() => testEngine({ SHOAL_TEST_ENGINE_ERROR: 'dockerd exited while starting (exit code 1)' })).toThrow(
      'this test needs a Docker engine: dockerd exited while starting (exit code 1)',
    );
  });

  it('throws when the run was told to start none', () => {
    expect(() => testEngine({ SHOAL_TEST_ENGINE: 'none' })).toThrow(/SHOAL_TEST_ENGINE=none/);
  });
});

describe('the test engine dockerd', () => {
  it('keeps every file under its folder and publishes ports on loopback only', () => {
    const args = dockerdArgs('/tmp/e');
    expect(args).toEqual(expect.arrayContaining(['unix:///tmp/e/docker.sock', '/tmp/e/data', '/tmp/e/exec', '/tmp/e/docker.pid']));
    expect(args[args.indexOf('--ip') + 1]).toBe('127.0.0.1');
    expect(args).not.toContain('--bridge');
    expect(dockerdArgs('/tmp/e', 'none').slice(-2)).toEqual(['--bridge', 'none']);
  });
});
