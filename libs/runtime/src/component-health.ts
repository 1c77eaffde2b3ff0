/**
 * Health and readiness of a component process, for whatever runs it (compose, Kubernetes,
 * a supervisor, Prometheus): /healthz is live while the process serves; /readyz is ready
 * once its view has caught up with the log's end (as the log was when asked) and it holds
 * ownership (active) or awaits it (standby). The body says which, under which term, at
 * which offset of which end. /statez adds the hash of the view's state at that offset, so
 * an operator (or a test) can check that every process that has read the log to the same
 * point holds the same state. /metrics is the process's registry (ProcessMetrics).
 *
 * A process that serves several clusters answers for each: `partitions` lists every
 * partition's health (its cluster, state, term and position), and it is ready once every
 * partition's view has caught up with that partition's end.
 */
import { Controller, Get, Header, HttpCode, HttpException, HttpStatus, Inject } from '@nestjs/common';
import type { EventLog } from '@shoal/eventlog';
import { EVENT_LOG, KafkaEventLog } from '@shoal/eventlog';
import { COMPONENT_RUNNERS } from './component-tokens';
import type { ComponentRunner, RunnerState } from './component-runner';
import { haltMessage } from './live-view';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus';
import { PROCESS_METRICS } from './process-metrics';
import type { ProcessMetrics } from './process-metrics';

export interface ComponentHealth {
  readonly component: string;
  readonly state: RunnerState;
  readonly term?: number;
  /** The view's position: the offset of the next record it will apply. */
  readonly position: number;
  /** Why the view stopped reading, on a record a newer build wrote (not ready then). */
  readonly halted?: string;
}

export interface ComponentReadiness extends ComponentHealth {
  /** The log's end when asked: ready once the position has reached it. */
  readonly logEnd?: number;
  /** Why it is not ready, when it is not. */
  readonly reason?: string;
}

export interface ComponentStateHash extends ComponentHealth {
  /** The state hash of the view at `position` (what `shoal audit replay --to <position>` prints). */
  readonly hash: string;
}

export const componentHealth = (runner: ComponentRunner): ComponentHealth => ({
  component: runner.component,
  state: runner.state,
  ...(runner.term !== undefined ? { term: runner.term } : {}),
  position: runner.view.position,
  ...(runner.view.halted ? { halted: haltMessage(runner.view.halted) } : {}),
});

/** The health with the view's state hash, read together (the view applies records synchronously). */
export const componentStateHash = (runner: ComponentRunner): ComponentStateHash => ({ ...componentHealth(runner), hash: runner.view.projection.hash() });

/** /healthz: live unless stopped (503 with the health then). */
export const liveHealth = (runner: ComponentRunner): ComponentHealth => {
  const health = componentHealth(runner);
  if (health.state === 'stopped') throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
  return health;
};

/**
 * /readyz: ready once replayed, standby (awaiting ownership) or active (holding it), reading
 * on, and caught up with `logEnd` — the log's end when asked, when the caller can read it
 * (503 with the health and the reason otherwise).
 */
export const readyHealth = (runner: ComponentRunner, logEnd?: number | Error): ComponentReadiness => {
  const health = componentHealth(runner);
  const notReady = (reason: string, end?: number): never => {
    throw new HttpException({ ...health, ...(end !== undefined ? { logEnd: end } : {}), reason }, HttpStatus.SERVICE_UNAVAILABLE);
  };
  if (health.state !== 'active' && health.state !== 'standby') return notReady(`the ${health.component} is ${health.state}`);
  if (health.halted) return notReady(health.halted);
  if (logEnd instanceof Error) return notReady(`the log's end cannot be read: ${logEnd.message}`);
  if (logEnd !== undefined && health.position < logEnd) return notReady(`the view is behind the log: at offset ${health.position} of ${logEnd}`, logEnd);
  return { ...health, ...(logEnd !== undefined ? { logEnd } : {}) };
};

/** The log's end, or the error reading it. */
export const logEndOf = (log: EventLog): Promise<number | Error> =>
  log.highWaterMark().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));

/** One partition's part of a process that serves several clusters. */
export type PartitionPart<T> = T & { readonly partition: number; readonly cluster?: string };

/** The answer of a process that serves several clusters: one part per partition. */
export interface PartitionsHealth<T> {
  readonly component: string;
  readonly partitions: readonly PartitionPart<T>[];
}

const partitionOf = (runner: ComponentRunner): number => (runner.log instanceof KafkaEventLog ? runner.log.partition : 0);

const partOf = <T>(runner: ComponentRunner, health: T): PartitionPart<T> => {
  const cluster = runner.view.state.cluster?.id;
  return { partition: partitionOf(runner), ...(cluster === undefined ? {} : { cluster }), ...health };
};

/** The parts' answers, each as the one runner's would be; unavailable (503, with every part) when one part is. */
const eachPartition = <T>(runners: readonly ComponentRunner[], answer: (runner: ComponentRunner, index: number) => T): PartitionsHealth<T> => {
  let failed = false;
  const partitions = runners.map((runner, index) => {
    try {
      return partOf(runner, answer(runner, index));
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      failed = true;
      return partOf(runner, error.getResponse() as T);
    }
  });
  const body = { component: runners[0]!.component, partitions };
  if (failed) throw new HttpException(body, HttpStatus.SERVICE_UNAVAILABLE);
  return body;
};

@Controller()
export class ComponentHealthController {
  constructor(
    @Inject(COMPONENT_RUNNERS) private readonly runners: readonly ComponentRunner[],
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROCESS_METRICS) private readonly processMetrics: ProcessMetrics,
  ) {}

  /** The one runner of a process that serves one cluster; undefined when it serves several. */
  private get only(): ComponentRunner | undefined {
    return this.runners.length === 1 ? this.runners[0] : undefined;
  }

  @Get('healthz')
  @HttpCode(HttpStatus.OK)
  live(): ComponentHealth | PartitionsHealth<ComponentHealth> {
    const only = this.only;
    return only ? liveHealth(only) : eachPartition(this.runners, liveHealth);
  }

  @Get('statez')
  stateHash(): ComponentStateHash | PartitionsHealth<ComponentStateHash> {
    const only = this.only;
    return only ? componentStateHash(only) : eachPartition(this.runners, componentStateHash);
  }

  @Get('readyz')
  async ready(): Promise<ComponentReadiness | PartitionsHealth<ComponentReadiness>> {
    const only = this.only;
    if (only) return readyHealth(only, await logEndOf(this.log));
    const ends = await Promise.all(this.runners.map((runner) => logEndOf(runner.log)));
    return eachPartition(this.runners, (runner, index) => readyHealth(runner, ends[index]));
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return this.processMetrics.text();
  }
}
