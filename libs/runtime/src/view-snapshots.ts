/**
 * Snapshots of a component's view, so that a restarted process replays only the tail of
 * the log: the view is saved now and then (when it has moved) and when the process stops,
 * and a new process starts from the newest snapshot that belongs to the log it reads.
 *
 * Belongs means: it is not past the end of the log, and the record just before it was
 * written for the cluster the snapshot holds (so a data dir pointed at another cluster's
 * log is not trusted). When it is restored (LiveView, Projection.fromSnapshot) a snapshot
 * its store read intact (the SHA-256 of the file's bytes, written with them) is used as it
 * is, and one of an older format, without that digest, is checked by hashing its state
 * against its hash. Replay from zero stays what an audit relies on: `shoal audit verify`
 * checks each component's newest snapshot, its state hashed again, against it.
 */
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { shoalSettings } from '@shoal/config';
import { decode } from '@shoal/contracts';
import { FileSnapshotStore } from '@shoal/eventlog';
import type { EventLog, SnapshotStore } from '@shoal/eventlog';
import { snapshotInSteps } from '@shoal/domain';
import type { Snapshot } from '@shoal/domain';
import type { LiveView } from './live-view';

export interface ViewSnapshots {
  readonly store: SnapshotStore;
  /** How often the view is saved when it has moved (ms). */
  readonly everyMs: number;
}

/**
 * A component process's snapshots, from its environment: `$SHOAL_DATA_DIR/snapshots/<component>`
 * (data dir default `.shoal`), every SHOAL_SNAPSHOT_EVERY_MS (default 30 s; 0 turns them off).
 * Instances of one component may share the directory: they save the same state at the same
 * offsets, each file written whole and renamed into place.
 */
export const viewSnapshotsFromEnv = (env: NodeJS.ProcessEnv, component: string): ViewSnapshots | undefined => {
  const settings = shoalSettings(env);
  return viewSnapshotsIn(settings.SHOAL_DATA_DIR, component, settings.SHOAL_SNAPSHOT_EVERY_MS);
};

/** A component's snapshots under `<dataDir>/snapshots/<component>`, every `everyMs` (0: none). */
export const viewSnapshotsIn = (dataDir: string, component: string, everyMs: number): ViewSnapshots | undefined =>
  everyMs > 0 ? { store: new FileSnapshotStore(join(dataDir, 'snapshots', component)), everyMs } : undefined;

/** The newest snapshot in the store that belongs to `log`, or why there is none to use. */
export const snapshotFor = async (log: EventLog, store: SnapshotStore): Promise<{ readonly snapshot?: Snapshot; readonly refused?: string }> => {
  const snapshot = await store.latest();
  if (!snapshot) return {};
  const end = await log.highWaterMark();
  if (snapshot.offset > end) return { refused: `the snapshot at offset ${snapshot.offset} is past the end of the log (${end})` };
  const cluster = snapshot.state.cluster?.id;
  if (cluster === undefined) return { refused: `the snapshot at offset ${snapshot.offset} holds no cluster yet: replaying from the start` };
  const [before] = await log.read(snapshot.offset - 1, { max: 1 });
  const written = before ? decode(before.value) : undefined;
  const writtenFor = written?.ok ? written.event.cluster : written?.envelope?.cluster;
  if (writtenFor !== cluster) {
    return { refused: `the log's record at offset ${snapshot.offset - 1} is not of cluster ${cluster}: the snapshot belongs to another log` };
  }
  return { snapshot };
};

/** Entities hashed between two turns of the event loop while a snapshot is taken (~5 ms of work). */
const ENTITIES_PER_STEP = 500;

/**
 * The most of a component's time its snapshots take: after a snapshot that took t, the next
 * is not begun before 9t has passed, however short the interval. At a million tasks a
 * snapshot takes tens of seconds of a loaded machine's CPU, and five components taking one
 * every 30 s starved themselves until they lost their leases.
 */
export const SNAPSHOT_SHARE = 0.1;

/**
 * Entities of the state a record since the last snapshot must stand for before another is
 * taken: none for fewer records than a thousandth of the state's entities. At a million
 * tasks a snapshot costs tens of seconds of CPU and a copy of the state in memory, and a
 * restart replays a thousand records in well under one; a component that restarted and
 * wrote only its OwnershipTaken took a whole one again for that record.
 */
export const ENTITIES_PER_RECORD = 1_000;

/** The state's entities (what a snapshot's cost grows with). */
const entitiesOf = (state: LiveView['state']): number =>
  state.tasks.size + state.nodes.size + state.services.size + state.networks.size + state.configs.size + state.secrets.size;

/**
 * Saves a view's snapshot every so often, and once more on flush, whenever the view is
 * somewhere no snapshot in the store already holds (and far enough from the last,
 * ENTITIES_PER_RECORD): a view replayed from the start is saved even if no record came after.
 */
export class SnapshotSaver {
  private timer?: ReturnType<typeof setInterval>;
  private saving: Promise<void> = Promise.resolve();
  /** When the next timed snapshot may begin (SNAPSHOT_SHARE). */
  private nextAt = 0;

  constructor(
    private readonly snapshots: ViewSnapshots,
    private readonly view: () => LiveView,
    private readonly onError: (message: string) => void,
    /** The offset of the snapshot the view was restored from, if it was. */
    private savedAt = -1,
    private readonly now: () => number = Date.now,
    /** Told of each snapshot saved: its offset and how long it took, capture to file. */
    private readonly onSaved?: (saved: { readonly offset: number; readonly ms: number }) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.saveIfDue(), this.snapshots.everyMs);
    this.timer.unref?.();
  }

  /** A timed snapshot: taken if the view moved, unless the last one was so long ago only in a share of its own length. */
  saveIfDue(): Promise<void> {
    return this.save(false);
  }

  /** Stops saving on a timer and saves what the view holds now (if it moved). */
  async flush(): Promise<void> {
    clearInterval(this.timer);
    await this.save(true);
  }

  private save(always: boolean): Promise<void> {
    this.saving = this.saving.then(async () => {
      const view = this.view();
      if (view.position === this.savedAt || view.state.cluster === undefined) return;
      if (this.savedAt >= 0 && (view.position - this.savedAt) * ENTITIES_PER_RECORD < entitiesOf(view.state)) return;
      if (!always && this.now() < this.nextAt) return;
      const began = this.now();
      // Captured now; hashed and written a slice at a time, the view going on in between:
      // at 100,000 tasks this is over a second of work, which must not stop the component.
      const steps = snapshotInSteps(view.state, view.position, ENTITIES_PER_STEP);
      let step = steps.next();
      while (!step.done) {
        await nextTurn();
        step = steps.next();
      }
      const snapshot = step.value;
      try {
        await this.snapshots.store.save(snapshot);
        this.savedAt = snapshot.offset;
        this.onSaved?.({ offset: snapshot.offset, ms: this.now() - began });
      } catch (error) {
        this.onError(`could not save a snapshot at offset ${snapshot.offset}: ${(error as Error).message}`);
      }
      const ended = this.now();
      this.nextAt = ended + ((ended - began) * (1 - SNAPSHOT_SHARE)) / SNAPSHOT_SHARE;
    });
    return this.saving;
  }
}
