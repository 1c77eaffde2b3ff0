/**
 * /healthz, /statez and /readyz of the dispatcher process, as every component answers
 * them: live while it serves, the view's position and state hash, ready once its view has
 * replayed the log (standby or active).
 */
import { Controller, Get, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { componentHealth, componentStateHash } from '@shoal/runtime';
import type { ComponentHealth, ComponentStateHash } from '@shoal/runtime';
import type { DispatcherServer } from './dispatcher-server';

export const DISPATCHER_SERVER = Symbol('DISPATCHER_SERVER');

@Controller()
export class DispatcherHealthController {
  constructor(@Inject(DISPATCHER_SERVER) private readonly server: DispatcherServer) {}

  private health(): ComponentHealth {
    return componentHealth(this.runner());
  }

  private runner() {
    const runner = this.server.runner;
    if (!runner) throw new HttpException({ component: 'dispatcher', state: 'starting', position: 0 }, HttpStatus.SERVICE_UNAVAILABLE);
    return runner;
  }

  @Get('statez')
  stateHash(): ComponentStateHash {
    return componentStateHash(this.runner());
  }

  @Get('healthz')
  live(): ComponentHealth {
    const health = this.health();
    if (health.state === 'stopped') throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }

  @Get('readyz')
  ready(): ComponentHealth {
    const health = this.health();
    if (health.state !== 'active' && health.state !== 'standby') throw new HttpException(health, HttpStatus.SERVICE_UNAVAILABLE);
    return health;
  }
}
