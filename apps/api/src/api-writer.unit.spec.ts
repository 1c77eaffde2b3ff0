import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, decode } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { LiveView } from '@shoal/runtime';
import { serviceSpec, keptJoinTokens } from '@shoal/testing';
import { ApiEventWriter } from './api-writer';

describe("the API's EventWriter", () => {
  let dir: string;
  let log: EmbeddedEventLog;
  let view: LiveView;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-api-writer-'));
    log = await EmbeddedEventLog.open({ dir, sync: false });
    view = new LiveView(log);
    await view.start();
  });
  afterEach(async () => {
    await view.stop();
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts concurrent intents on the log in seq order, so none is dropped as a duplicate', async () => {
    const writer = new ApiEventWriter(log, 'c1', 'api', 'api-test', { view });
    await writer.appendAndWait(view, [writer.propose('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: LOG_LEVEL })]);
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        writer.appendAndWait(view, [writer.propose('ServiceCreated', { id: `s${index}`, spec: serviceSpec(`web-${index}`) })]),
      ),
    );
    expect(verdicts.flat().map((verdict) => verdict.status)).toEqual(Array(20).fill('applied'));
    const seqs = (await log.read(0)).map((record) => decode(record.value)).map((decoded) => (decoded.ok ? decoded.event.seq : -1));
    expect(seqs).toEqual(Array.from({ length: 21 }, (_, index) => index + 1));
  });

  it("writes for the log's cluster once there is one, whatever it started with", async () => {
    const other = new ApiEventWriter(log, 'c-other', 'api', 'api-other', { view });
    expect(other.currentCluster).toBe('c-other');
    const first = new ApiEventWriter(log, 'c1', 'api', 'api-first', { view });
    await first.appendAndWait(view, [first.propose('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: LOG_LEVEL })]);
    expect(other.currentCluster).toBe('c1');
    await other.appendAndWait(view, [other.propose('ServiceCreated', { id: 's1', spec: serviceSpec('web') })]);
    const [, record] = await log.read(0);
    expect(record!.key).toBe('c1');
    const decoded = decode(record!.value);
    expect(decoded.ok && decoded.event.cluster).toBe('c1');
  });
});
