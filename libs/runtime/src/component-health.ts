/**
 * Health and readiness of a component process, for whatever runs it (compose, Kubernetes,
 * a supervisor, Prometheus): /healthz is live while the process serves; /readyz is ready
 * once its view has caught up with the log's end (as the log was when asked) and it holds
 * ownership (active) or awaits it (standby). The body says which, under which term, at
 * which offset of which end. /statez adds the hash of the view's state at that offset, so
 * an operator (or a test) can check that every process that has read the log to the same
 * point holds the same state. /metrics is the process's registry (ProcessMetrics).
 */
import { Controller, Get, Header, HttpCode, HttpException, HttpStatus, Inject } from '@nestjs/common';
import type { EventLog } from '@shoal/eventlog';
import { EVENT_LOG } from '@shoal/eventlog';
import { COMPONENT_RUNNER } from './component-tokens';
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

@Controller()
export class ComponentHealthController {
  constructor(
    @Inject(COMPONENT_RUNNER) private readonly runner: ComponentRunner,
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROCESS_METRICS) private readonly processMetrics: ProcessMetrics,
  ) {}

  @Get('healthz')
  @HttpCode(HttpStatus.OK)
  live(): ComponentHealth {
    return liveHealth(this.runner);
  }

  @Get('statez')
  stateHash(): ComponentStateHash {
    return componentStateHash(this.runner);
  }

  @Get('readyz')
  async ready(): Promise<ComponentReadiness> {
    return readyHealth(this.runner, await logEndOf(this.log));
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return this.processMetrics.text();
  }
}
