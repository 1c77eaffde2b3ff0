import { TaskState, taskStateName } from '@shoal/contracts';
import type { TaskStateName } from '@shoal/contracts';
import { toStateData } from '@shoal/domain';
import { haltMessage, replayLog } from '@shoal/runtime';
import { withLog } from './log-source';
import { progressReporter } from './progress';
import { readProgress } from './read-progress';

export const auditReplay = (options: { to?: number; json?: boolean }): Promise<number> =>
  withLog(async (log) => {
    const end = await log.highWaterMark();
    if (options.to !== undefined && options.to > end) {
      process.stderr.write(`shoal: --to ${options.to} is past the end of the log (${end} records); use --to ${end} or less\n`);
      return 2;
    }
    // On a terminal, how far the replay has got (stderr only: stdout stays the result).
    const progress = progressReporter(process.stderr);
    const projection = await replayLog(readProgress(log, progress, () => 'replayed'), { to: options.to ?? end }).finally(() => progress.clear());
    const hash = projection.hash();
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ offset: projection.position, hash, tally: projection.tally, ...(projection.halted ? { halted: projection.halted } : {}), state: toStateData(projection.state) })}\n`);
      return 0;
    }
    const { state, tally } = projection;
    const byState = new Map<TaskStateName, number>();
    for (const task of state.tasks.values()) {
      const name = taskStateName(task.status.state);
      byState.set(name, (byState.get(name) ?? 0) + 1);
    }
    const tasks = [...byState.entries()]
      .sort(([a], [b]) => TaskState[a] - TaskState[b])
      .map(([name, count]) => `${count} ${name}`)
      .join(', ');
    const lines = [
      `log       ${log.description}`,
      `offset    ${projection.position} of ${end}`,
      `hash      ${hash}`,
      `records   ${tally.applied} applied, ${tally.partial} partial, ${tally.rejected} rejected, ${tally.poison} poison`,
      `cluster   ${state.cluster ? `${state.cluster.id} (spec version ${state.cluster.version})` : 'not initialized'}`,
      `services  ${state.services.size}`,
      `nodes     ${state.nodes.size}`,
      `networks  ${state.networks.size}`,
      `configs   ${state.configs.size}`,
      `tasks     ${state.tasks.size}${tasks ? ` (${tasks})` : ''}`,
      ...(projection.halted ? [`stopped   ${haltMessage(projection.halted)}`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return projection.halted ? 1 : 0;
  });
