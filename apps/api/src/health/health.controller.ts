/**
 * The API process's /healthz (it serves), /statez (its view's position and state hash),
 * /readyz (its view has caught up with the log) and /metrics (Prometheus: its process's
 * registry — the process's defaults, the API's families, and those of the parts sharing
 * its process when the host gave API_METRICS).
 */
import { Controller, Get, Header, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { PROMETHEUS_CONTENT_TYPE } from '@shoal/runtime';
import type { LiveView } from '@shoal/runtime';
import { API_VIEW } from '../api.tokens';
import { ApiProcessMetrics } from './api-process-metrics';

export interface ApiHealth {
  readonly status: 'ok';
  /** The offset of the next record the view will apply. */
  readonly position: number;
}

export interface ApiStateHash {
  readonly position: number;
  /** The state hash of the view at `position` (what `shoal audit replay --to <position>` prints). */
  readonly hash: string;
}

export interface ApiReadiness {
  readonly ready: true;
  readonly position: number;
  readonly highWaterMark: number;
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(API_VIEW) private readonly view: LiveView,
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(ApiProcessMetrics) private readonly api: ApiProcessMetrics,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Live: the API process serves' })
  @ApiOkResponse({ description: '{status: "ok", position}' })
  health(): ApiHealth {
    return { status: 'ok', position: this.view.position };
  }

  @Get('statez')
  @ApiOperation({ summary: "The view's position and the hash of its state there, to compare with other processes and with an audit replay" })
  @ApiOkResponse({ description: '{position, hash}' })
  stateHash(): ApiStateHash {
    return { position: this.view.position, hash: this.view.projection.hash() };
  }

  @Get('readyz')
  @ApiOperation({ summary: "Ready: the API's view has applied every record the log had when asked" })
  @ApiOkResponse({ description: '{ready: true, position, highWaterMark}' })
  @ApiServiceUnavailableResponse({ description: "The view is behind the log: {message}" })
  async ready(): Promise<ApiReadiness> {
    const highWaterMark = await this.log.highWaterMark();
    const position = this.view.position;
    if (position < highWaterMark) {
      throw new HttpException(
        { message: `the API's view is behind the log: at offset ${position} of ${highWaterMark}` },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    }
    return { ready: true, position, highWaterMark };
  }

  @Get('metrics')
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  @ApiOperation({ summary: 'Metrics in Prometheus text format' })
  @ApiProduces('text/plain')
  metrics(): Promise<string> {
    return this.api.metrics.text();
  }
}
