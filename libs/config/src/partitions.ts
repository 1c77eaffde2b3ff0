/**
 * Which partitions of the log topic a process serves (SHOAL_PARTITIONS): one partition is
 * one cluster's log. `all` is every partition the topic has when the process starts; a list
 * names partitions and ranges, `0-9,12`.
 */
export type PartitionSelection = 'all' | readonly number[];

const PART = /^(\d+)(?:-(\d+))?$/;
/** More partitions than any topic is made with: a typo, not a plan. */
const MOST = 100_000;

/** The selection `text` names, or what is wrong with it. */
export const parsePartitions = (text: string): { readonly selection: PartitionSelection } | { readonly problem: string } => {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'all') return { selection: 'all' };
  const chosen = new Set<number>();
  for (const part of trimmed.split(',').map((piece) => piece.trim())) {
    const match = PART.exec(part);
    if (!match) return { problem: `"${part}" is not a partition or a range (write all, or numbers and ranges like 0-9,12)` };
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) return { problem: `the range ${part} ends before it starts` };
    if (last >= MOST || chosen.size + (last - first + 1) > MOST) return { problem: `${part} names more partitions than a topic has (at most ${MOST})` };
    for (let partition = first; partition <= last; partition++) chosen.add(partition);
  }
  return { selection: [...chosen].sort((a, b) => a - b) };
};

/** The partition a process that serves `selection` opens its log on: the first it names (0 for all). */
export const firstPartition = (selection: PartitionSelection): number => (selection === 'all' ? 0 : (selection[0] ?? 0));

/** Whether `selection` is exactly one partition. */
export const isOnePartition = (selection: PartitionSelection): boolean => selection !== 'all' && selection.length === 1;
