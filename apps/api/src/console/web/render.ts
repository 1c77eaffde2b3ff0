/** What the page shows, as elements: the cluster at a point, a task's story, a difference, a verify report. */
import type { ConsoleDiff, ConsoleNode, ConsoleService, ConsoleView, KindDiff } from '../console-wire';
import type { HistoryRecord, TaskHistory, VerifyReport } from './audit-answers';
import { h, table } from './dom';
import type { Child } from './dom';

/** Task states in SwarmKit's order, so the counts read left to right as a task's life. */
const STATE_ORDER = ['NEW', 'PENDING', 'ASSIGNED', 'ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'COMPLETE', 'SHUTDOWN', 'FAILED', 'REJECTED', 'REMOVE', 'ORPHANED'];

const short = (id: string): string => id.slice(0, 12);

const percent = (used: { readonly reserved: number; readonly total: number }): string =>
  used.total > 0 ? `${Math.round((100 * used.reserved) / used.total)}%` : '–';

export const describeTime = (at: string | undefined): string => (at ? new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'no records yet');

const serviceRow = (service: ConsoleService): HTMLElement =>
  h(
    'tr',
    { 'data-service': service.name, class: service.running < service.desired ? 'short' : undefined },
    h('td', {}, service.name),
    h('td', {}, service.mode),
    h('td', {}, service.image),
    h('td', { class: 'replicas n' }, `${service.running}/${service.desired}`),
    h('td', { class: 'n' }, service.version),
    h('td', { class: 'update' }, service.update ? `${service.update.state}${service.update.message ? `: ${service.update.message}` : ''}` : ''),
  );

const nodeRow = (node: ConsoleNode): HTMLElement =>
  h(
    'tr',
    { 'data-node': node.hostname, class: node.status === 'ready' ? undefined : 'down' },
    h('td', {}, node.hostname),
    h('td', {}, node.role),
    h('td', { class: 'status' }, node.status),
    h('td', { class: 'availability' }, node.availability),
    h('td', { class: 'tasks n' }, node.tasks),
    h('td', { class: 'n' }, percent(node.nanoCpus)),
    h('td', { class: 'n' }, percent(node.memoryBytes)),
  );

/** The cluster at one point: services, tasks by state, the newest tasks (each opens its story), nodes, updates. */
export const renderView = (view: ConsoleView, onTask: (id: string) => void): Record<'services' | 'states' | 'tasks' | 'nodes' | 'updates', Child> => {
  const states = [...STATE_ORDER.filter((state) => state in view.tasksByState), ...Object.keys(view.tasksByState).filter((state) => !STATE_ORDER.includes(state))];
  return {
    services: table(['service', 'mode', 'image', 'running/desired', 'version', 'update'], view.services.map(serviceRow), 'no services'),
    states:
      states.length === 0
        ? h('p', { class: 'empty' }, 'no tasks')
        : h('ul', { class: 'chips' }, states.map((state) => h('li', { 'data-state': state, class: `state-${state.toLowerCase()}` }, h('span', { class: 'count' }, view.tasksByState[state] ?? 0), ` ${state}`))),
    tasks: h(
      'div',
      {},
      table(
        ['task', 'service', 'slot', 'node', 'state', 'desired', 'message'],
        view.tasks.map((task) =>
          h(
            'tr',
            {
              'data-task': task.id,
              class: 'clickable',
              title: 'the task’s story',
              tabindex: 0,
              onclick: () => onTask(task.id),
              onkeydown: (event: Event) => (event as KeyboardEvent).key === 'Enter' && onTask(task.id),
            },
            h('td', { class: 'id' }, short(task.id)),
            h('td', {}, task.serviceName),
            h('td', { class: 'n' }, task.slot ?? ''),
            h('td', { class: 'id' }, task.node ? short(task.node) : ''),
            h('td', { class: 'state' }, task.state),
            h('td', {}, task.desired),
            h('td', { class: 'message' }, task.message ?? ''),
          ),
        ),
        'no tasks',
      ),
      view.taskCount > view.tasks.length ? h('p', { class: 'note' }, `the newest ${view.tasks.length} of ${view.taskCount} tasks`) : null,
    ),
    nodes: h(
      'div',
      {},
      view.nodeCount > 0
        ? h('p', { class: 'note' }, Object.entries(view.nodesByStatus).map(([status, count]) => `${count} ${status}`).join(' · '))
        : null,
      table(['node', 'role', 'status', 'availability', 'tasks', 'cpu reserved', 'memory reserved'], view.nodes.map(nodeRow), 'no nodes'),
      view.nodeCount > view.nodes.length ? h('p', { class: 'note' }, `${view.nodes.length} of ${view.nodeCount} nodes: those not ready or not active first`) : null,
    ),
    updates:
      view.updates.length === 0
        ? h('p', { class: 'empty' }, 'no update under way')
        : h('ul', {}, view.updates.map((service) => h('li', { 'data-update': service.name }, `${service.name}: ${service.update?.state ?? ''}${service.update?.message ? ` — ${service.update.message}` : ''}`))),
  };
};

/** What a record said about the task: the scheduler's reason, its explanation, a status, or the item itself. */
const itemText = (record: HistoryRecord): string => {
  const item = record.item as Record<string, unknown> | null;
  if (item && typeof item === 'object') {
    if (typeof item.why === 'string') return item.why;
    if (typeof item.explain === 'string') return item.explain;
    const parts = ['state', 'desiredState', 'node', 'message', 'err', 'exitCode']
      .filter((key) => item[key] !== undefined && typeof item[key] !== 'object')
      .map((key) => `${key} ${String(item[key])}`);
    if (Array.isArray(item.attachments)) parts.push(`${item.attachments.length} network attachment${item.attachments.length === 1 ? '' : 's'}`);
    if (Array.isArray(item.ports) && item.ports.length > 0) parts.push(`${item.ports.length} published port${item.ports.length === 1 ? '' : 's'}`);
    if (parts.length > 0) return parts.join(' · ');
  }
  const text = JSON.stringify(item);
  return text && text.length > 240 ? `${text.slice(0, 240)}…` : (text ?? '');
};

/** A task's story: every record that touched it, each with its verdict on this task and why. */
export const renderStory = (history: TaskHistory): HTMLElement =>
  h(
    'div',
    { 'data-story': history.task },
    h('h3', {}, `Task ${history.task}`),
    history.placement ? h('p', { class: 'placement' }, h('b', {}, 'Placed: '), history.placement) : null,
    history.unschedulable ? h('p', { class: 'unschedulable' }, h('b', {}, 'Could not place: '), history.unschedulable) : null,
    h(
      'ol',
      { class: 'story' },
      history.records.map((record) =>
        h(
          'li',
          { class: record.outcome, 'data-offset': record.offset },
          h('span', { class: 'offset' }, `@${record.offset}`),
          ' ',
          h('span', { class: 'type' }, record.type ?? '(unreadable)'),
          ' ',
          h('span', { class: 'by' }, record.by ?? ''),
          ' ',
          h('time', {}, describeTime(record.at)),
          h('div', { class: 'item' }, itemText(record)),
          record.outcome === 'refused' ? h('div', { class: 'refused' }, `refused: ${record.verdict.reasons.join('; ') || record.verdict.status}`) : null,
        ),
      ),
    ),
  );

const kind = (title: string, diff: KindDiff): HTMLElement =>
  h(
    'section',
    { 'data-kind': title },
    h('h4', {}, `${title}: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`),
    h(
      'ul',
      {},
      diff.added.map((entity) => h('li', { class: 'added' }, `+ ${entity.name}`)),
      diff.removed.map((entity) => h('li', { class: 'removed' }, `− ${entity.name}`)),
      diff.changed.map((entity) =>
        h('li', { class: 'changed', 'data-changed': entity.name }, `~ ${entity.name}: `, entity.changes.map((change) => `${change.field} ${change.from || '∅'} → ${change.to || '∅'}`).join(', ')),
      ),
    ),
  );

/** What changed from one point to another. */
export const renderDiff = (diff: ConsoleDiff): HTMLElement =>
  h(
    'div',
    {},
    h('p', {}, `From offset ${diff.from.position} (${describeTime(diff.from.at)}) to offset ${diff.to.position} (${describeTime(diff.to.at)})`),
    kind('services', diff.services),
    kind('tasks', diff.tasks),
    kind('nodes', diff.nodes),
  );

/** The verify report: do the replays agree, the hash, the tally, the refusals and poison records. */
export const renderVerify = (report: VerifyReport): HTMLElement => {
  const poison = report.refusals.filter((refusal) => refusal.status === 'poison');
  return h(
    'div',
    {},
    h('p', { class: report.agree ? 'agree' : 'disagree', 'data-agree': String(report.agree) }, report.agree ? '✔ every replay agrees' : '✘ the replays disagree'),
    h('p', {}, `${report.highWaterMark} records · state hash `, h('code', {}, report.hash)),
    h('p', {}, `applied ${report.tally.applied} · partial ${report.tally.partial} · rejected ${report.tally.rejected} · poison ${report.tally.poison} · upcast ${report.tally.upcast}`),
    report.halted ? h('p', { class: 'disagree' }, `halted at offset ${report.halted.offset}: ${report.halted.reason}`) : null,
    h('ul', {}, report.checks.map((check) => h('li', { class: check.agrees ? 'agree' : 'disagree' }, `${check.agrees ? '✔' : '✘'} ${check.name} → ${check.hash.slice(0, 16)}… at ${check.position}`))),
    poison.length > 0
      ? h('div', {}, h('h4', {}, `${poison.length} poison record${poison.length === 1 ? '' : 's'}`), h('ul', {}, poison.map((record) => h('li', {}, `@${record.offset}: ${record.reasons.join('; ')}`))))
      : h('p', { class: 'poison-none' }, 'no poison records'),
  );
};
