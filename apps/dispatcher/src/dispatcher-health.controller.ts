/**
 * /healthz, /statez and /readyz of the dispatcher process, as every component answers
 * them: live while it serves, the view's position and state hash, ready once its view has
 * replayed the log (standby or active). Before its runner exists, each answers 503 "starting".
 * /metrics (Prometheus): what its view has read, as every component's, and its agents'
 * sessions, heartbeats and statuses.
 */
import { Controller, Get, Header, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { PROMETHEUS_CONTENT_TYPE, componentStateHash, componentViewMetrics, liveHealth, prometheusText, readyHealth } from '@shoal/runtime';
import type { ComponentHealth, ComponentRunner, ComponentStateHash } from '@shoal/runtime';
import type { DispatcherServer } from './dispatcher-server';

export const DISPATCHER_SERVER = Symbol('DISPATCHER_SERVER');

@Controller()
export class DispatcherHealthController {
  constructor(@Inject(DISPATCHER_SERVER) private readonly server: DispatcherServer) {}

  private runner(): ComponentRunner {
    const runner = this.server.runner;
    if (!runner) throw new HttpException({ component: 'dispatcher', state: 'starting', position: 0 }, HttpStatus.SERVICE_UNAVAILABLE);
    return runner;
  }

  @Get('healthz')
  live(): ComponentHealth {
    return liveHealth(this.runner());
  }

  @Get('statez')
  stateHash(): ComponentStateHash {
    return componentStateHash(this.runner());
  }

  @Get('readyz')
  ready(): ComponentHealth {
    return readyHealth(this.runner());
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  metrics(): string {
    const runner = this.server.runner;
    return prometheusText([...(runner ? componentViewMetrics(runner) : []), ...this.server.metrics()]);
  }
}
