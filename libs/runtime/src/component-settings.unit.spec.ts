import { componentSettingsFromEnv } from './component-settings';

describe('a component process\'s settings from the environment', () => {
  it('listens on 127.0.0.1, any free port, writes for the log\'s cluster and snapshots every 30 s unless told otherwise', () => {
    const settings = componentSettingsFromEnv({}, 'scheduler');
    expect(settings).toEqual({ host: '127.0.0.1', healthPort: 0, snapshots: { store: expect.objectContaining({ dir: '.shoal/snapshots/scheduler' }), everyMs: 30_000 } });
  });

  it('takes the cluster, host, port and snapshots it is given', () => {
    const env = { SHOAL_CLUSTER_ID: ' c1 ', SHOAL_BIND_HOST: '0.0.0.0', SHOAL_HEALTH_PORT: '9100', SHOAL_DATA_DIR: '/var/lib/shoal', SHOAL_SNAPSHOT_EVERY_MS: '0' };
    expect(componentSettingsFromEnv(env, 'reaper')).toEqual({ cluster: 'c1', host: '0.0.0.0', healthPort: 9100 });
  });

  it('refuses a port that is not one, in the name of the setting', () => {
    expect(() => componentSettingsFromEnv({ SHOAL_HEALTH_PORT: 'http' }, 'reaper')).toThrow('SHOAL_HEALTH_PORT must be a port number (0–65535), not "http"');
    expect(() => componentSettingsFromEnv({ SHOAL_HEALTH_PORT: '70000' }, 'reaper')).toThrow('SHOAL_HEALTH_PORT must be a port number (0–65535), not "70000"');
  });
});
