/**
 * The cluster's admission limits (GET and PUT /shoal/v1/cluster/limits): Docker's swarm spec
 * has no field for them, so they are Shoal's own setting. A change is a ClusterSpecUpdated,
 * on the log and audited; `docker swarm update` keeps them as they are.
 */
import { Body, Controller, Get, Inject, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ADMISSION_LIMIT_NAMES } from '@shoal/contracts';
import type { AdmissionLimits } from '@shoal/contracts';
import { admissionLimits } from '@shoal/domain';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { dockerValidationPipe } from '../audit/docker-validation';
import { Intents } from '../intents/intents';
import { AdmissionLimitsBody } from './limits.dto';

@ApiTags('cluster')
@Controller('shoal/v1/cluster/limits')
export class LimitsController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: 'The admission limits in force: replicas per service, tasks, services, spec size' })
  @ApiOkResponse({ type: AdmissionLimitsBody })
  get(): AdmissionLimits {
    return admissionLimits(this.intents.cluster().spec);
  }

  @Put()
  @ApiOperation({ summary: 'Change some admission limits', description: 'The fields given replace their values; the others stay. Services already admitted stay as they are.' })
  @ApiOkResponse({ type: AdmissionLimitsBody })
  @ApiBadRequestResponse({ description: 'A limit that is not a positive integer: the field and the reason.', schema: DOCKER_ERROR_SCHEMA })
  async put(@Body(dockerValidationPipe(AdmissionLimitsBody)) body: AdmissionLimitsBody): Promise<AdmissionLimits> {
    const cluster = this.intents.cluster();
    const given: Partial<Record<keyof AdmissionLimits, number>> = {};
    for (const name of ADMISSION_LIMIT_NAMES) if (body[name] !== undefined) given[name] = body[name];
    if (Object.keys(given).length > 0) {
      await this.intents.submit('ClusterSpecUpdated', { spec: { ...cluster.spec, limits: { ...cluster.spec.limits, ...given } } }, { clusterVersion: cluster.version });
    }
    return this.get();
  }
}
