import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskRoots, configPath } from './task-root';

describe('task roots', () => {
  it("places a config's file under the root: an absolute target from the root, a relative one from '/'; one climbing out is refused", () => {
    expect(configPath('/r/t1', '/etc/app.conf')).toBe('/r/t1/etc/app.conf');
    expect(configPath('/r/t1', 'app.conf')).toBe('/r/t1/app.conf');
    expect(configPath('/r/t1', './etc//nginx/../app.conf')).toBe('/r/t1/etc/app.conf');
    expect(() => configPath('/r/t1', '../t2/app.conf')).toThrow(/config file \.\.\/t2\/app\.conf is outside the task's root/);
    expect(() => configPath('/r/t1', '/etc/../../app.conf')).toThrow(/outside the task's root/);
    expect(() => configPath('/r/t1', '/')).toThrow(/names no file/);
    expect(() => configPath('/r/t1', '/etc/..')).toThrow(/names no file/);
  });

  it('makes each root empty, removes it, and removes the roots a crashed agent left in the state dir but not the records of its processes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-roots-spec-'));
    try {
      const tasks = join(dir, 'tasks');
      mkdirSync(join(tasks, 'old-task', 'etc'), { recursive: true });
      writeFileSync(join(tasks, 'old-task', 'etc', 'app.conf'), 'x');
      writeFileSync(join(tasks, 'old-task.json'), '{}');
      const roots = new TaskRoots(tasks);
      expect(await roots.removeLeftovers()).toEqual(['old-task']);
      expect(readdirSync(tasks)).toEqual(['old-task.json']);

      const root = await roots.make('t1');
      writeFileSync(join(root, 'leftover'), 'x');
      // Made again (an agent that restarts a task of the same id never does, but the root starts empty all the same).
      expect(await roots.make('t1')).toBe(root);
      expect(readdirSync(root)).toEqual([]);
      await roots.remove(root);
      expect(existsSync(root)).toBe(false);
      const kept = await roots.make('t2');
      await roots.close();
      expect(existsSync(kept)).toBe(false);
      // The state dir is the agent's: closing leaves it, and what else is in it.
      expect(readdirSync(tasks)).toEqual(['old-task.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the root of a task with secrets in memory, and refuses a memory dir that is not on tmpfs', async () => {
    const disk = mkdtempSync(join(tmpdir(), 'shoal-roots-spec-'));
    const memory = mkdtempSync('/dev/shm/shoal-roots-spec-');
    try {
      const roots = new TaskRoots(join(disk, 'tasks'), memory);
      expect(await roots.make('plain')).toBe(join(disk, 'tasks', 'plain'));
      const secretive = await roots.make('secretive', { inMemory: true });
      expect(secretive).toBe(join(memory, 'secretive'));
      await roots.close();
      expect(existsSync(secretive)).toBe(false);
      await expect(new TaskRoots(join(disk, 'tasks'), join(disk, 'not-memory')).make('t', { inMemory: true })).rejects.toThrow(
        `a task with secrets keeps its files in memory, and ${join(disk, 'not-memory')} is not on tmpfs: the exec executor will not write secrets to disk`,
      );
    } finally {
      rmSync(disk, { recursive: true, force: true });
      rmSync(memory, { recursive: true, force: true });
    }
  });
});
