/**
 * /healthz, /statez and /readyz of the dispatcher process, as every component answers
 * them: live while it serves, the view's position and state hash, ready once its view has
 * caught up with the log's end (standby or active). Before its runner exists, each answers
 * 503 "starting". /metrics (Prometheus): its process's registry — its view and ticks, as
 * every component's, and its agents' sessions, heartbeats and statuses.
 */
import { Controller, Get, Header, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { PROMETHEUS_CONTENT_TYPE, componentStateHash, liveHealth, logEndOf, readyHealth } from '@shoal/runtime';
import type { ComponentHealth, ComponentReadiness, ComponentRunner, ComponentStateHash } from '@shoal/runtime';
import type { DispatcherServer } from './dispatcher-server';

export const DISPATCHER_SERVER = Symbol('DISPATCHER_SERVER');

@Controller()
export class DispatcherHealthController {
  constructor(
    @Inject(DISPATCHER_SERVER) private readonly server: DispatcherServer,
    @Inject(EVENT_LOG) private readonly log: EventLog,
  ) {}

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
  async ready(): Promise<ComponentReadiness> {
    const runner = this.runner();
    return readyHealth(runner, await logEndOf(this.log));
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return this.server.metrics.text();
  }
}
