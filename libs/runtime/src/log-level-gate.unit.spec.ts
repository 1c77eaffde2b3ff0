/**
 * Writers use a record version only at the log level it needs, and readers of this build
 * stop on a level (or a version) they do not read.
 */
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, decode, encode, versionGateRefusal } from '@shoal/contracts';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, keptJoinTokens, openEmbeddedTestLog, serviceSpec } from '@shoal/testing';
import { EventWriter } from './event-writer';
import { LiveView } from './live-view';

describe('the log level gate', () => {
  it('lets a version through at or above the level it needs, and says what to do below it', () => {
    const levels = { ServiceCreated: { 2: 2 } };
    expect(versionGateRefusal('ServiceCreated', 1, 1, levels)).toBeUndefined();
    expect(versionGateRefusal('ServiceCreated', 2, 2, levels)).toBeUndefined();
    expect(versionGateRefusal('ServiceCreated', 2, 1, levels)).toBe(
      'ServiceCreated v2 needs log level 2 and the log is at level 1: raise it (POST /shoal/v1/log-level) once every component runs a build that reads level 2',
    );
  });

  it('makes a level above the build\'s a record this build stops on, not poison', () => {
    const b = new EventBuilder();
    const decoded = decode(encode(b.event('LogLevelRaised', { level: LOG_LEVEL + 1 })));
    expect(decoded).toMatchObject({ ok: false, future: true, reason: `log level ${LOG_LEVEL + 1} (this build reads up to level ${LOG_LEVEL})` });
    expect(decode(encode(b.event('LogLevelRaised', { level: LOG_LEVEL }))).ok).toBe(true);
    // So is a cluster a newer build made at its own level.
    const tokens = keptJoinTokens({ worker: 'w', manager: 'm' });
    expect(decode(encode(b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens, logLevel: LOG_LEVEL + 1 })))).toMatchObject({ ok: false, future: true });
    expect(decode(encode(b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens, logLevel: LOG_LEVEL }))).ok).toBe(true);
  });

  describe('a writer', () => {
    let log: EmbeddedEventLog;
    let closeLog: () => Promise<void>;
    beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-gate-')));
    afterEach(() => closeLog());

    it('appends nothing whose version the log\'s level does not allow yet', async () => {
      const b = new EventBuilder();
      await log.append([{ key: 'c1', value: encode(clusterInit(b)) }]);
      const view = new LiveView(log);
      await view.start();
      try {
        // A build whose ServiceCreated v1 needed level 2, on a log still at level 1.
        const writer = new EventWriter(log, 'c1', 'api', 'api-1', { versionLevels: { ServiceCreated: { 1: 2 } } });
        await expect(writer.appendAndWait(view, [writer.propose('ServiceCreated', { id: 's1', spec: serviceSpec('web') })])).rejects.toThrow(
          /^ServiceCreated v1 needs log level 2 and the log is at level 1/,
        );
        expect(await log.highWaterMark()).toBe(1);
        const today = new EventWriter(log, 'c1', 'api', 'api-2');
        const [verdict] = await today.appendAndWait(view, [today.propose('ServiceCreated', { id: 's1', spec: serviceSpec('web') })]);
        expect(verdict?.status).toBe('applied');
      } finally {
        await view.stop();
      }
    });
  });
});
