/**
 * Health and readiness of a component process, for whatever runs it (compose, Kubernetes,
 * a supervisor): live while the process serves; ready once its view has replayed the log
 * (standby or active). The body says which, under which term, at which offset. /statez
 * adds the hash of the view's state at that offset, so an operator (or a test) can check
 * that every process that has read the log to the same point holds the same state.
 * /metrics (Prometheus) says what its view has read, poison included (viewMetrics).
 */
import { Controller, Get, Header, HttpCode, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { COMPONENT_RUNNER } from './component-tokens';
import type { ComponentRunner, RunnerState } from './component-runner';
import { haltMessage } from './live-view';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus';
import type { MetricFamily } from './prometheus';
import { viewMetrics } from './view-metrics';

export interface ComponentHealth {
  readonly component: string;
  readonly state: RunnerState;
  readonly term?: number;
  /** The view's position: the offset of the next record it will apply. */
  readonly position: number;
  /** Why the view stopped reading, on a record a newer build wrote (not ready then). */
  readonly halted?: string;
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

/** /readyz: ready once replayed, standby or active, and reading on (503 with the health otherwise). */
export const readyHealth = (runner: ComponentRunner): ComponentHealth => {
  const health = componentHealth(runner);
  if ((health.state !== 'active' && health.state !== 'standby') || health.halted) throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
  return health;
};

/** What a component's /metrics says about its view (viewMetrics). */
export const componentViewMetrics = (runner: ComponentRunner): MetricFamily[] =>
  viewMetrics(runner.view.projection, { whose: `the ${runner.component}'s view`, startedAt: runner.view.startedAt });

@Controller()
export class ComponentHealthController {
  constructor(@Inject(COMPONENT_RUNNER) private readonly runner: ComponentRunner) {}

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
  ready(): ComponentHealth {
    return readyHealth(this.runner);
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  metrics(): string {
    return prometheusText(componentViewMetrics(this.runner));
  }
}
