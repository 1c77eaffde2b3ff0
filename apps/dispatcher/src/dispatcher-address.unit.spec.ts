import { addressOfInstance, instanceWithAddress } from '@shoal/protocol';
import { dispatcherAddresses, hostPort, peerHost } from './dispatcher-address';
import { DEFAULT_DISPATCHER_PORT, dispatcherOptionsFromEnv } from './dispatcher.config';

describe('dispatcher addresses', () => {
  it('reads back the address an instance name carries', () => {
    expect(addressOfInstance(instanceWithAddress('dispatcher-h-1-ab', '127.0.0.1:4243'))).toBe('127.0.0.1:4243');
    expect(addressOfInstance('dispatcher-h-1-ab')).toBeUndefined();
    expect(addressOfInstance(undefined)).toBeUndefined();
    expect(hostPort('::1', 5)).toBe('[::1]:5');
  });

  it('tells agents its own address first, then the other members of its lease, each once, sorted', () => {
    const members = ['dispatcher-c@10.0.0.3:4243', 'dispatcher-a@10.0.0.1:4243', 'no-address', 'dispatcher-b@10.0.0.2:4243', 'dispatcher-b2@10.0.0.2:4243'];
    expect(dispatcherAddresses('10.0.0.2:4243', members)).toEqual(['10.0.0.2:4243', '10.0.0.1:4243', '10.0.0.3:4243']);
    expect(dispatcherAddresses('10.0.0.9:4243', [])).toEqual(['10.0.0.9:4243']);
  });

  it("takes the host out of a gRPC peer", () => {
    expect(peerHost('127.0.0.1:53412')).toBe('127.0.0.1');
    expect(peerHost('ipv4:10.0.0.2:5000')).toBe('10.0.0.2');
    expect(peerHost('[::1]:53412')).toBe('::1');
  });
});

describe('dispatcher settings from the environment', () => {
  it('listens on 127.0.0.1 and the default port unless told otherwise', () => {
    expect(dispatcherOptionsFromEnv({ SHOAL_SNAPSHOT_EVERY_MS: '0' })).toEqual({ host: '127.0.0.1', port: DEFAULT_DISPATCHER_PORT });
    expect(dispatcherOptionsFromEnv({ SHOAL_SNAPSHOT_EVERY_MS: '0', SHOAL_DISPATCHER_PORT: '0', SHOAL_CLUSTER_ID: 'c1', SHOAL_DISPATCHER_ADVERTISE: 'disp-1:4243' })).toEqual({
      host: '127.0.0.1',
      port: 0,
      cluster: 'c1',
      advertise: 'disp-1:4243',
    });
  });

  it('snapshots its view under the data dir every 30 s unless told otherwise', () => {
    expect(dispatcherOptionsFromEnv({ SHOAL_DATA_DIR: '/var/lib/shoal' }).snapshots).toEqual({ store: expect.objectContaining({ dir: '/var/lib/shoal/snapshots/dispatcher' }), everyMs: 30_000 });
    expect(dispatcherOptionsFromEnv({ SHOAL_SNAPSHOT_EVERY_MS: '5000' }).snapshots).toEqual({ store: expect.objectContaining({ dir: '.shoal/snapshots/dispatcher' }), everyMs: 5_000 });
    expect(() => dispatcherOptionsFromEnv({ SHOAL_SNAPSHOT_EVERY_MS: 'often' })).toThrow(/SHOAL_SNAPSHOT_EVERY_MS must be a whole number of milliseconds/);
  });

  it('refuses a port or an advertised address that is not one', () => {
    expect(() => dispatcherOptionsFromEnv({ SHOAL_DISPATCHER_PORT: 'http' })).toThrow(/SHOAL_DISPATCHER_PORT must be a port number/);
    expect(() => dispatcherOptionsFromEnv({ SHOAL_DISPATCHER_PORT: '70000' })).toThrow(/SHOAL_DISPATCHER_PORT/);
    expect(() => dispatcherOptionsFromEnv({ SHOAL_DISPATCHER_ADVERTISE: 'no-port' })).toThrow(/host:port/);
  });
});
