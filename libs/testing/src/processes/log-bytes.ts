/**
 * A log as bytes, the way it crosses a process boundary: for each record, its offset
 * (8 bytes), the length of its value (4 bytes) and the value's UTF-8 — the bytes a broker
 * hands a consumer, with nothing of the writer's objects left in them.
 */
export interface LogRecord {
  readonly offset: number;
  readonly value: string;
}

export const logToBytes = (records: readonly LogRecord[]): Uint8Array => {
  const values = records.map((record) => Buffer.from(record.value, 'utf8'));
  const out = Buffer.alloc(values.reduce((sum, value) => sum + 12 + value.length, 0));
  let at = 0;
  records.forEach((record, i) => {
    const value = values[i]!;
    out.writeBigUInt64BE(BigInt(record.offset), at);
    out.writeUInt32BE(value.length, at + 8);
    value.copy(out, at + 12);
    at += 12 + value.length;
  });
  return out;
};

export const logFromBytes = (bytes: Uint8Array): LogRecord[] => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LogRecord[] = [];
  let at = 0;
  while (at < buffer.length) {
    if (at + 12 > buffer.length) throw new Error(`a record header is cut short at byte ${at} of ${buffer.length}`);
    const offset = Number(buffer.readBigUInt64BE(at));
    const length = buffer.readUInt32BE(at + 8);
    if (at + 12 + length > buffer.length) throw new Error(`record at offset ${offset} says ${length} bytes, but only ${buffer.length - at - 12} follow`);
    records.push({ offset, value: buffer.toString('utf8', at + 12, at + 12 + length) });
    at += 12 + length;
  }
  return records;
};
