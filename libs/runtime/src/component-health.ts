/**
 * Health and readiness of a component process, for whatever runs it (compose, Kubernetes,
 * a supervisor): live while the process serves; ready once its view has replayed the log
 * (standby or active). The body says which, under which term, at which offset.
 */
import { Controller, Get, HttpCode, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { COMPONENT_RUNNER } from './component-tokens';
import type { ComponentRunner, RunnerState } from './component-runner';

export interface ComponentHealth {
  readonly component: string;
  readonly state: RunnerState;
  readonly term?: number;
  /** The view's position: the offset of the next record it will apply. */
  readonly position: number;
}

export const componentHealth = (runner: ComponentRunner): ComponentHealth => ({
  component: runner.component,
  state: runner.state,
  ...(runner.term !== undefined ? { term: runner.term } : {}),
  position: runner.view.position,
});

@Controller()
export class ComponentHealthController {
  constructor(@Inject(COMPONENT_RUNNER) private readonly runner: ComponentRunner) {}

  @Get('healthz')
  @HttpCode(HttpStatus.OK)
  live(): ComponentHealth {
    const health = componentHealth(this.runner);
    if (health.state === 'stopped') throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }

  @Get('readyz')
  ready(): ComponentHealth {
    const health = componentHealth(this.runner);
    if (health.state !== 'active' && health.state !== 'standby') throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }
}
