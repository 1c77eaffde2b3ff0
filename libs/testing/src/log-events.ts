/** Writing events to a log and reading them back, as tests on a real log do. */
import { decode, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import type { AppendResult, EventLog } from '@shoal/eventlog';

/** Appends `events` as records keyed by the cluster (`c1`, the builders' cluster, unless told). */
export const appendEvents = (log: EventLog, events: readonly ShoalEvent[], key = 'c1'): Promise<AppendResult> =>
  log.append(events.map((event) => ({ key, value: encode(event) })));

/** Every event on the log so far that decodes (poison records left out). */
export const eventsOn = async (log: EventLog): Promise<ShoalEvent[]> =>
  (await log.read(0)).flatMap((record) => {
    const decoded = decode(record.value);
    return decoded.ok ? [decoded.event] : [];
  });
