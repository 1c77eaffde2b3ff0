import { eventually } from './eventually';

describe('eventually', () => {
  it('returns the first answer that is neither undefined nor false', async () => {
    let calls = 0;
    const answer = await eventually('the third call', () => (++calls === 3 ? `call ${calls}` : undefined), { everyMs: 1 });
    expect(answer).toBe('call 3');
    let checks = 0;
    await expect(eventually('a boolean check holds', async () => ++checks >= 2, { everyMs: 1 })).resolves.toBe(true);
    expect(checks).toBe(2);
  });

  it('fails after the time limit, saying what it waited for and what it saw', async () => {
    await expect(eventually('never', () => false, { timeoutMs: 20, everyMs: 5, explain: () => ({ seen: 1 }) })).rejects.toThrow(
      'timed out after 20 ms waiting until never: {"seen":1}',
    );
    await expect(eventually('nothing', () => undefined, 10)).rejects.toThrow('timed out after 10 ms waiting until nothing');
  });
});
