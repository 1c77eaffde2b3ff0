import { CONSTRAINT_KEYS, isConstraintKey } from './constraint-key';

describe('constraint keys', () => {
  it('knows the node fields in any case and labels by a name', () => {
    for (const key of ['node.id', 'NODE.Hostname', 'node.role', 'node.ip', 'node.platform.os', 'node.platform.arch', 'node.labels.zone', 'Engine.Labels.disk']) expect(isConstraintKey(key)).toBe(true);
    for (const key of ['zone', 'node.labels.', 'engine.labels', 'node.colour', 'node.platform']) expect(isConstraintKey(key)).toBe(false);
  });

  it('lists them as a user reads them', () => {
    expect(CONSTRAINT_KEYS.join(', ')).toBe('node.id, node.hostname, node.role, node.ip, node.platform.os, node.platform.arch, node.labels.<name>, engine.labels.<name>');
  });
});
