import { constraintProblem } from './constraints';

describe('constraintProblem', () => {
  it('accepts what the scheduler reads, on a key it knows', () => {
    for (const ok of ['node.labels.zone==east', ' node.role != manager ', 'NODE.ROLE==worker', 'engine.labels.disk==ssd', 'node.ip==10.0.0.0/8', 'node.labels.a==b c']) expect(constraintProblem(ok)).toBeUndefined();
  });

  it('says an expression is not of the form when it has no operator, a key of other characters, or no value on one line', () => {
    for (const bad of ['zone=east', 'node.labels.zone', 'no de==x', '==x', 'node.role==', 'node.role==a\nb', 'node.labels.é==x', 'a=b!=c']) {
      expect(constraintProblem(bad)).toBe(`"${bad}" is not of the form <key>==<value> or <key>!=<value>`);
    }
  });

  it('names the keys when the key is none of them', () => {
    const keys = '(node.id, node.hostname, node.role, node.ip, node.platform.os, node.platform.arch, node.labels.<name>, engine.labels.<name>)';
    expect(constraintProblem('zone==east')).toBe(`"zone" is not a constraint key ${keys}`);
    expect(constraintProblem(' 1zone == x ')).toBe(`"1zone" is not a constraint key ${keys}`);
    expect(constraintProblem('zone!=a==b')).toBe(`"zone" is not a constraint key ${keys}`);
    expect(constraintProblem('node.labels.==x')).toBe(`"node.labels." is not a constraint key ${keys}`);
  });

  it('refuses a value the scheduler cannot read, in the grammar\'s words', () => {
    expect(constraintProblem('node.labels.owner==a@b')).toBe(`constraint "node.labels.owner==a@b": value 'a@b' is invalid`);
    expect(constraintProblem('node.role!=a==b')).toBe(`constraint "node.role!=a==b": value 'a==b' is invalid`);
    expect(constraintProblem('node.labels.zone==east,west')).toBe(`constraint "node.labels.zone==east,west": value 'east,west' is invalid`);
  });
});
