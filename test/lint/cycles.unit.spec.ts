import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `npm run lint` runs dependency-cruiser over apps/ and libs/ with .dependency-cruiser.js,
// which forbids import cycles, type-only ones included. dependency-cruiser is an ES module,
// which jest's sandbox cannot load, so it runs in a child process, as `npm run lint` runs it.
const root = join(__dirname, '..', '..');
const cruiser = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

const cruise = (...paths: string[]): { status: number | null; output: string } => {
  const run = spawnSync(process.execPath, [cruiser, '--config', '.dependency-cruiser.js', ...paths], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

describe('lint refuses import cycles', () => {
  it('fails on a cycle of type-only imports, naming its modules', () => {
    const { status, output } = cruise('test/lint/fixtures/type-only-cycle');
    expect(status).not.toBe(0);
    expect(output).toMatch(/no-circular/);
    expect(output).toMatch(/shelf\.ts/);
    expect(output).toMatch(/book\.ts/);
  });

  it('passes the same modules when their imports go one way', () => {
    const { status, output } = cruise('test/lint/fixtures/one-way');
    expect(output).not.toMatch(/no-circular/);
    expect(status).toBe(0);
  });
});
