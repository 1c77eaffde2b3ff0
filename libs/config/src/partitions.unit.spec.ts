import { firstPartition, isOnePartition, parsePartitions } from './partitions';
import { shoalSettings } from './shoal-settings';

describe('SHOAL_PARTITIONS', () => {
  it('reads all, single partitions and ranges, in order and once each', () => {
    expect(parsePartitions('all')).toEqual({ selection: 'all' });
    expect(parsePartitions(' ALL ')).toEqual({ selection: 'all' });
    expect(parsePartitions('3')).toEqual({ selection: [3] });
    expect(parsePartitions('12, 0-2,1')).toEqual({ selection: [0, 1, 2, 12] });
  });

  it('says what is wrong with a part that is not a partition or a range', () => {
    expect(parsePartitions('0,x')).toEqual({ problem: '"x" is not a partition or a range (write all, or numbers and ranges like 0-9,12)' });
    expect(parsePartitions('5-2')).toEqual({ problem: 'the range 5-2 ends before it starts' });
    expect(parsePartitions('')).toMatchObject({ problem: expect.stringContaining('is not a partition') });
    expect(parsePartitions('0-100000')).toMatchObject({ problem: expect.stringContaining('more partitions than a topic has') });
  });

  it('opens the first partition named (0 for all), and knows one from several', () => {
    expect(firstPartition('all')).toBe(0);
    expect(firstPartition([4, 7])).toBe(4);
    expect(isOnePartition([4])).toBe(true);
    expect(isOnePartition([4, 7])).toBe(false);
    expect(isOnePartition('all')).toBe(false);
  });

  it('is refused at start-up when bad, or beside a cluster id with several partitions', () => {
    expect(() => shoalSettings({ SHOAL_PARTITIONS: '0-' })).toThrow(/SHOAL_PARTITIONS: "0-" is not a partition or a range/);
    expect(() => shoalSettings({ SHOAL_PARTITIONS: 'all', SHOAL_CLUSTER_ID: 'c1' })).toThrow(/SHOAL_CLUSTER_ID names one cluster: unset it to serve several partitions/);
    expect(shoalSettings({ SHOAL_PARTITIONS: '2', SHOAL_CLUSTER_ID: 'c1' }).SHOAL_PARTITIONS).toBe('2');
  });
});
