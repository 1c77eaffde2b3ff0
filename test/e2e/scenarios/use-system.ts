/**
 * A docker CLI scenario's system under test, for a describe block: started in its
 * `beforeAll`, stopped in its `afterAll`.
 */
import { startInProcess } from './in-process-system';
import { startProcesses } from './processes-system';
import type { RunningSystem, SystemHandle, SystemKind } from './system-under-test';

/**
 * Starts a system of `kind` in the enclosing describe's `beforeAll` and stops it in its
 * `afterAll`; the scenarios reach it through `handle.current`.
 */
export const useSystem = (kind: SystemKind): SystemHandle => {
  let system: RunningSystem | undefined;
  beforeAll(async () => {
    system = kind === 'in-process' ? await startInProcess() : await startProcesses();
  }, 300_000);
  afterAll(() => system?.close());
  return {
    kind,
    get current() {
      if (!system) throw new Error(`the ${kind} system did not start`);
      return system;
    },
  };
};
