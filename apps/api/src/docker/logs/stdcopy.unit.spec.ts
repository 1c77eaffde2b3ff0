import { HEADER_BYTES, STDERR, STDOUT, SYSTEM_ERROR, frame, systemErrorFrame } from './stdcopy';

describe("Docker's multiplexed stream", () => {
  it('heads each payload with its stream, three zero bytes and its length, big-endian', () => {
    const out = frame(STDOUT, 'hello\n');
    expect([...out.subarray(0, HEADER_BYTES)]).toEqual([1, 0, 0, 0, 0, 0, 0, 6]);
    expect(out.subarray(HEADER_BYTES).toString()).toBe('hello\n');
  });

  it('numbers stdout 1, stderr 2 and the daemon\'s errors 3', () => {
    expect([STDOUT, STDERR, SYSTEM_ERROR]).toEqual([1, 2, 3]);
    expect(frame(STDERR, 'x')[0]).toBe(2);
    expect(systemErrorFrame('node n1 is not connected')[0]).toBe(3);
  });

  it('counts the payload in bytes, not characters, over all four length bytes', () => {
    expect(frame(STDOUT, 'é\n').readUInt32BE(4)).toBe(3);
    const big = frame(STDERR, Buffer.alloc(0x010203));
    expect([...big.subarray(4, 8)]).toEqual([0, 1, 2, 3]);
    expect(big.length).toBe(HEADER_BYTES + 0x010203);
  });

  it('writes a log error as moby does', () => {
    expect(systemErrorFrame('node n1 is not connected').subarray(HEADER_BYTES).toString()).toBe('Error grabbing logs: node n1 is not connected\n');
  });
});
