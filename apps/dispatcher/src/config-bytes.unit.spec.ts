import { ConfigBytes } from './config-bytes';
import { toConfigMessage } from './protocol-mapping';

const config = (id: string, text: string) => ({ id, name: `${id}-name`, data: Buffer.from(text).toString('base64') });

describe('config bytes', () => {
  it('decodes a config once for every node it is sent to', () => {
    const bytes = new ConfigBytes();
    const first = bytes.bytesOf(config('c1', 'port=80\n'));
    expect(first.toString()).toBe('port=80\n');
    expect(bytes.bytesOf(config('c1', 'port=80\n'))).toBe(first);
    // The messages to two nodes carry the same bytes.
    expect(toConfigMessage(config('c2', 'x'))!.data).toBe(toConfigMessage(config('c2', 'x'))!.data);
  });

  it('keeps the configs sent last within its budget, and decodes again a config whose data is not the one it kept', () => {
    const bytes = new ConfigBytes(10);
    const a = bytes.bytesOf(config('a', '12345'));
    const b = bytes.bytesOf(config('b', '67890'));
    expect(bytes.keptBytes).toBe(10);
    expect(bytes.bytesOf(config('a', '12345'))).toBe(a); // a is now the most recent
    bytes.bytesOf(config('c', 'xyz')); // over budget: b, the least recent, goes
    expect(bytes.keptBytes).toBe(8);
    expect(bytes.bytesOf(config('b', '67890'))).not.toBe(b);
    expect(bytes.bytesOf(config('b', 'other')).toString()).toBe('other');
    // One larger than the budget is decoded, not kept.
    expect(bytes.bytesOf(config('big', 'x'.repeat(11))).toString()).toBe('x'.repeat(11));
    expect(bytes.keptBytes).toBeLessThanOrEqual(10);
  });
});
