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

  it('takes a key of a letter or _ and then at least one letter, digit, -, _ or ., nothing before it or after it', () => {
    for (const key of ['ab', '_a', 'node.labels.rack-1_b', 'Node.Labels.X9']) expect(readConstraint(`${key}==x`)).toMatchObject({ ok: true, constraint: { key } });
    for (const key of ['a', '1a', '.node.role', '-node.role', 'node.role@', 'node.role/x']) {
      expect(readConstraint(`${key}==x`)).toEqual({ ok: false, reason: `constraint "${key}==x": key '${key}' is invalid`, key, value: 'x' });
    }
  });

  it('takes a value of letters, digits and the characters of a pattern, spaces inside it, and no operator anywhere in it', () => {
    for (const value of ['east', 'a b', '10.0.0.0/8', 'x*', '(a|b)?', '[a-z]+', '^a$', 'c:\\d', 'a_b-c']) {
      expect(readConstraint(`node.labels.k==${value}`)).toMatchObject({ ok: true, constraint: { value } });
    }
    for (const value of ['b<', 'a>b', '~a', 'a=', '!a']) {
      expect(readConstraint(`node.labels.k==${value}`)).toEqual({ ok: false, reason: `constraint "node.labels.k==${value}": value '${value}' is invalid`, key: 'node.labels.k', value });
    }
  });
});
