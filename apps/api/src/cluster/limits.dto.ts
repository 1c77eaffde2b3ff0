/** The body of PUT /shoal/v1/cluster/limits: the limits to change, each a positive integer (400 with the field and the reason). */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

const positive = { message: 'must be a positive integer' };
const MOST = Number.MAX_SAFE_INTEGER;

export class AdmissionLimitsBody {
  @ApiPropertyOptional({ description: 'Most replicas one replicated service may ask for (and a replicated job\'s maxConcurrent and totalCompletions).', minimum: 1 })
  @IsOptional()
  @IsInt(positive)
  @Min(1, positive)
  @Max(MOST, positive)
  maxReplicasPerService?: number;

  @ApiPropertyOptional({ description: 'Most tasks every service together may ask to run at once.', minimum: 1 })
  @IsOptional()
  @IsInt(positive)
  @Min(1, positive)
  @Max(MOST, positive)
  maxTasks?: number;

  @ApiPropertyOptional({ description: 'Most services in the cluster.', minimum: 1 })
  @IsOptional()
  @IsInt(positive)
  @Min(1, positive)
  @Max(MOST, positive)
  maxServices?: number;

  @ApiPropertyOptional({ description: 'Largest service spec, in bytes of its JSON.', minimum: 1 })
  @IsOptional()
  @IsInt(positive)
  @Min(1, positive)
  @Max(MOST, positive)
  maxSpecBytes?: number;
}
