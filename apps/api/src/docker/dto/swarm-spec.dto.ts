/** Docker's SwarmSpec (swarm init and update bodies), validated; Shoal uses the parts it has. */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';

export class OrchestrationDto {
  @ApiPropertyOptional({ description: 'Old tasks kept per slot or node; negative keeps all' })
  @IsOptional() @IsInt()
  TaskHistoryRetentionLimit?: number;
}

export class DispatcherDto {
  @ApiPropertyOptional({ description: 'Agent heartbeat period, nanoseconds' })
  @IsOptional() @IsInt() @Min(1)
  HeartbeatPeriod?: number;
}

export class SwarmSpecDto {
  @IsOptional() @IsString()
  Name?: string;

  @IsOptional() @IsObject()
  Labels?: Record<string, string>;

  @ApiPropertyOptional({ type: OrchestrationDto })
  @IsOptional() @ValidateNested() @Type(() => OrchestrationDto)
  Orchestration?: OrchestrationDto;

  @ApiPropertyOptional({ type: DispatcherDto })
  @IsOptional() @ValidateNested() @Type(() => DispatcherDto)
  Dispatcher?: DispatcherDto;
}

export class SwarmInitDto {
  @IsOptional() @IsString()
  ListenAddr?: string;

  @IsOptional() @IsString()
  AdvertiseAddr?: string;

  @ApiPropertyOptional({ type: SwarmSpecDto })
  @IsOptional() @ValidateNested() @Type(() => SwarmSpecDto)
  Spec?: SwarmSpecDto;
}
