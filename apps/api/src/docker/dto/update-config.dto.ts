/** Docker's UpdateConfig / RollbackConfig, validated. Durations are nanoseconds. */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { FAILURE_ACTIONS, UPDATE_ORDERS } from '@shoal/contracts';

export class UpdateConfigDto {
  @ApiPropertyOptional({ description: 'Tasks updated at once; 0 = all' })
  @IsOptional() @IsInt() @Min(0)
  Parallelism?: number;

  @ApiPropertyOptional({ description: 'Nanoseconds between batches' })
  @IsOptional() @IsInt() @Min(0)
  Delay?: number;

  @ApiPropertyOptional({ enum: FAILURE_ACTIONS })
  @IsOptional() @IsIn([...FAILURE_ACTIONS])
  FailureAction?: string;

  @ApiPropertyOptional({ description: 'Nanoseconds to watch each updated task' })
  @IsOptional() @IsInt() @Min(0)
  Monitor?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional() @IsNumber() @Min(0) @Max(1)
  MaxFailureRatio?: number;

  @ApiPropertyOptional({ enum: UPDATE_ORDERS })
  @IsOptional() @IsIn([...UPDATE_ORDERS])
  Order?: string;
}
