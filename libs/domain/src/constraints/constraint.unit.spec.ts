import { constraintsOf, parseConstraint, parseConstraints, readConstraint } from './constraint';

describe('the placement constraint grammar', () => {
  it('parses a key, an operator and a value, trimming spaces', () => {
    expect(parseConstraint(' node.labels.zone == east ')).toEqual({ key: 'node.labels.zone', operator: '==', value: 'east' });
    expect(parseConstraint('node.role!=manager')).toEqual({ key: 'node.role', operator: '!=', value: 'manager' });
  });

  it('refuses an expression without an operator, a bad key or a value holding an operator, saying which', () => {
    expect(() => parseConstraint('node.role')).toThrow(/expected one operator from ==, !=/);
    expect(() => parseConstraint('no de==x')).toThrow(/key 'no de' is invalid/);
    expect(() => parseConstraint('node.labels.a==<b')).toThrow(/value '<b' is invalid/);
    expect(() => parseConstraints(['node.role==worker', 'oops'])).toThrow(/"oops"/);
  });

  it('reads an expression into a constraint or a reason, with the key and value it split it into', () => {
    expect(readConstraint('node.role == manager')).toEqual({ ok: true, constraint: { key: 'node.role', operator: '==', value: 'manager' } });
    expect(readConstraint('zone=east')).toEqual({ ok: false, reason: 'constraint "zone=east": expected one operator from ==, !=' });
    expect(readConstraint(' a b == c ')).toEqual({ ok: false, reason: 'constraint " a b == c ": key \'a b\' is invalid', key: 'a b', value: 'c' });
    expect(readConstraint('node.labels.owner==a@b')).toEqual({ ok: false, reason: 'constraint "node.labels.owner==a@b": value \'a@b\' is invalid', key: 'node.labels.owner', value: 'a@b' });
  });

  it('splits at the first operator, so a second one is in the value and refused there', () => {
    expect(readConstraint('node.role!=a==b')).toMatchObject({ ok: false, key: 'node.role', value: 'a==b' });
    expect(readConstraint('node.role==a!=b')).toMatchObject({ ok: false, key: 'node.role', value: 'a!=b' });
  });

  it('gives a service\'s constraints, or undefined when one does not parse', () => {
    expect(constraintsOf(undefined)).toEqual([]);
    expect(constraintsOf(['node.role==worker', 'node.labels.zone!=west'])).toEqual(parseConstraints(['node.role==worker', 'node.labels.zone!=west']));
    expect(constraintsOf(['node.role==worker', 'oops'])).toBeUndefined();
  });
});
