import { duplicatedRecords } from './duplicates';

const record = (offset: number, type: string, id: string) => ({ offset, value: JSON.stringify({ id, type, v: 1, data: {} }) });

describe('duplicatedRecords', () => {
  it('finds none when every record has an id of its own, however alike the rest', () => {
    expect(duplicatedRecords([record(0, 'ServiceCreated', 'a'), record(1, 'ServiceCreated', 'b'), record(2, 'TasksCreated', 'c')])).toEqual([]);
  });

  it('finds a record written again, at every offset it is at, with its type', () => {
    const again = [record(0, 'ServiceCreated', 'a'), record(1, 'TasksCreated', 'b'), { ...record(0, 'ServiceCreated', 'a'), offset: 2 }, { ...record(9, 'ServiceCreated', 'a'), offset: 5 }];
    expect(duplicatedRecords(again)).toEqual([{ offsets: [0, 2, 5], type: 'ServiceCreated' }]);
  });

  it('leaves out the offsets written on purpose, and names no type for a value that is not JSON', () => {
    const records = [{ offset: 0, value: 'garbage' }, { offset: 1, value: 'garbage' }, { offset: 2, value: 'garbage' }];
    expect(duplicatedRecords(records, new Set([1]))).toEqual([{ offsets: [0, 2] }]);
    expect(duplicatedRecords(records, new Set([0, 1]))).toEqual([]);
  });
});
