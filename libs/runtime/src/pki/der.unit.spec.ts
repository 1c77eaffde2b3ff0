import { children, namedBits, oid, readElement, sequence, smallInteger, time, tlv, unsignedInteger } from './der';

const hex = (buffer: Buffer): string => buffer.toString('hex');

describe('DER', () => {
  it('encodes object identifiers as X.690 says (first two arcs in one byte, base-128 after)', () => {
    expect(hex(oid('2.5.4.3'))).toBe('0603550403');
    expect(hex(oid('1.2.840.10045.4.3.2'))).toBe('06082a8648ce3d040302');
    expect(() => oid('2.x')).toThrow(/dotted decimal/);
  });

  it('keeps integers positive and minimal', () => {
    expect(hex(unsignedInteger(Buffer.from([0x80])))).toBe('02020080');
    expect(hex(unsignedInteger(Buffer.from([0, 0, 0x7f])))).toBe('02017f');
    expect(hex(smallInteger(0))).toBe('020100');
    expect(hex(smallInteger(2))).toBe('020102');
  });

  it('drops trailing zero bits from named bit strings', () => {
    expect(hex(namedBits([0]))).toBe('03020780'); // digitalSignature
    expect(hex(namedBits([0, 5, 6]))).toBe('03020186'); // digitalSignature, keyCertSign, cRLSign
  });

  it('writes UTCTime before 2050 and GeneralizedTime from it', () => {
    expect(time(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))).toString('latin1').slice(2)).toBe('260102030405Z');
    expect(time(new Date(Date.UTC(2051, 0, 2, 3, 4, 5))).toString('latin1').slice(2)).toBe('20510102030405Z');
  });

  it('uses the long length form past 127 bytes and reads it back', () => {
    const long = tlv(0x04, Buffer.alloc(300, 1));
    expect(hex(long.subarray(0, 4))).toBe('0482012c');
    const parsed = readElement(sequence(long, smallInteger(7)));
    const [first, second] = children(parsed);
    expect(first!.contents.length).toBe(300);
    expect(hex(second!.encoded)).toBe('020107');
  });

  it('refuses truncated input', () => {
    expect(() => readElement(Buffer.from([0x30, 0x05, 0x01]))).toThrow(/past the end/);
    expect(() => readElement(Buffer.from([0x30, 0x80]))).toThrow(/indefinite/);
  });
});
