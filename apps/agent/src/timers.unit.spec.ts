import { TimerWheel } from './timers';

describe('the timer wheel', () => {
  it('runs each callback once, never before its time, in order of due time', async () => {
    const wheel = new TimerWheel(5);
    const fired: { name: string; late: number }[] = [];
    const start = Date.now();
    const at = (name: string, delay: number) => wheel.after(delay, () => fired.push({ name, late: Date.now() - start - delay }));
    at('c', 60);
    at('a', 10);
    at('b', 30);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(fired.map((f) => f.name)).toEqual(['a', 'b', 'c']);
    for (const f of fired) expect(f.late).toBeGreaterThanOrEqual(0);
    expect(wheel.size).toBe(0);
  });

  it('does not run a cancelled callback, and runs callbacks scheduled from a callback', async () => {
    const wheel = new TimerWheel(5);
    const fired: string[] = [];
    const cancel = wheel.after(10, () => fired.push('cancelled'));
    wheel.after(10, () => wheel.after(0, () => fired.push('chained')));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fired).toEqual(['chained']);
  });
});
