/**
 * Memory under hostile input: the largest records admission lets onto the log (a spec of
 * maxSpecBytes made of as many labels as fit, maxReplicasPerService replicas running, a
 * config of MAX_CONFIG_BYTES), replayed through each component's view, stay within each
 * view's bound. A bound, not a measure: what each view holds is measured by
 * `npm run bench -- memory`; this fails only when a record's size is multiplied — a spec
 * kept once per task or per batch would be gigabytes, far past it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const VIEWS = ['state', 'allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'] as const;

/** Per task: the memory benchmark's largest view (the scheduler's, ~1.1 KB a task) with room to spare. */
const BYTES_PER_TASK = 1_536;
/** The largest spec and config may each be held a few times (the record, the state, a core's copy). */
const COPIES_OF_THE_LARGEST = 4;

interface Held {
  readonly view: string;
  readonly tasks: number;
  readonly specBytes: number;
  readonly configBytes: number;
  readonly bytes: number;
}

/** One view's heap after the replay, in a process of its own. */
const heldBy = (view: string): Promise<Held> =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=1024', '-r', join(ROOT, 'bin', 'register.js'), join(__dirname, 'hostile-memory.ts'), view],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${view}: ${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').filter(Boolean).pop() as string) as Held);
      },
    );
  });

/** A view's bound: its tasks at the per-task figure, plus the largest spec and config a few times over. */
const bound = (held: Held): number => held.tasks * BYTES_PER_TASK + COPIES_OF_THE_LARGEST * (held.specBytes + held.configBytes);

describe('memory under the largest input admission allows', () => {
  it('every component view holds the largest spec, config and replica count within its bound', async () => {
    const measured: Held[] = [];
    // Two at a time: one process per view keeps each heap apart.
    for (let i = 0; i < VIEWS.length; i += 2) measured.push(...(await Promise.all(VIEWS.slice(i, i + 2).map(heldBy))));
    for (const held of measured) {
      expect(held.tasks).toBe(100_000);
      expect(held.specBytes).toBeGreaterThan(1_040_000);
      process.stderr.write(`${held.view}: ${(held.bytes / 2 ** 20).toFixed(1)} MiB held, bound ${(bound(held) / 2 ** 20).toFixed(1)} MiB\n`);
    }
    expect(measured.filter((held) => held.bytes > bound(held)).map((held) => `${held.view}: ${held.bytes} B > ${bound(held)} B`)).toEqual([]);
  }, 240_000);
});
