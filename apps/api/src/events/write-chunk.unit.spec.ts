import { Writable } from 'node:stream';
import { writeChunk } from './write-chunk';

/** A client that takes one byte at a time, a little later each time. */
const slowClient = (): Writable =>
  new Writable({
    highWaterMark: 1,
    write: (_chunk, _encoding, callback) => void setImmediate(callback),
  });

describe('writeChunk', () => {
  it('waits for the slow client and leaves no listener behind, however long the stream', async () => {
    const out = slowClient();
    const closeListenersBefore = out.listenerCount('close');
    for (let i = 0; i < 50; i += 1) await writeChunk(out, `event ${i}\n`);
    expect(out.listenerCount('close')).toBe(closeListenersBefore);
    expect(out.listenerCount('drain')).toBe(0);
  });

  it('resolves when the client goes instead of draining', async () => {
    const out = new Writable({ highWaterMark: 1, write: () => undefined });
    const pending = writeChunk(out, 'more than one byte');
    out.destroy();
    await expect(pending).resolves.toBeUndefined();
  });
});
