/** Docker's ServiceSpec (service create and update bodies), validated. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { PORT_PROTOCOLS } from '@shoal/contracts';
import { NetworkAttachmentDto, TaskTemplateDto } from './task-template.dto';
import { UpdateConfigDto } from './update-config.dto';

export class ReplicatedDto {
  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER)
  Replicas?: number;
}

export class ReplicatedJobDto {
  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER)
  MaxConcurrent?: number;

  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER)
  TotalCompletions?: number;
}

export class ServiceModeDto {
  @ApiPropertyOptional({ type: ReplicatedDto })
  @IsOptional() @ValidateNested() @Type(() => ReplicatedDto)
  Replicated?: ReplicatedDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: false })
  @IsOptional() @IsObject()
  Global?: Record<string, never>;

  @ApiPropertyOptional({ type: ReplicatedJobDto })
  @IsOptional() @ValidateNested() @Type(() => ReplicatedJobDto)
  ReplicatedJob?: ReplicatedJobDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: false })
  @IsOptional() @IsObject()
  GlobalJob?: Record<string, never>;
}

export class PortConfigDto {
  @IsOptional() @IsString()
  Name?: string;

  @ApiPropertyOptional({ enum: PORT_PROTOCOLS })
  @IsOptional() @IsIn([...PORT_PROTOCOLS])
  Protocol?: string;

  @ApiProperty({ minimum: 1, maximum: 65535 })
  @IsInt() @Min(1) @Max(65535)
  TargetPort!: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 65535, description: '0 or absent: the allocator picks one' })
  @IsOptional() @IsInt() @Min(0) @Max(65535)
  PublishedPort?: number;

  @ApiPropertyOptional({ enum: ['ingress', 'host'] })
  @IsOptional() @IsIn(['ingress', 'host'])
  PublishMode?: string;
}

export class EndpointSpecDto {
  @ApiPropertyOptional({ enum: ['vip', 'dnsrr'] })
  @IsOptional() @IsIn(['vip', 'dnsrr'])
  Mode?: string;

  @ApiPropertyOptional({ type: [PortConfigDto] })
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => PortConfigDto)
  Ports?: PortConfigDto[];
}

export class ServiceSpecDto {
  @ApiProperty({ example: 'web' })
  @IsString() @IsNotEmpty()
  Name!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional() @IsObject()
  Labels?: Record<string, string>;

  @ApiProperty({ type: TaskTemplateDto })
  @ValidateNested() @Type(() => TaskTemplateDto)
  TaskTemplate!: TaskTemplateDto;

  @ApiPropertyOptional({ type: ServiceModeDto })
  @IsOptional() @ValidateNested() @Type(() => ServiceModeDto)
  Mode?: ServiceModeDto;

  @ApiPropertyOptional({ type: UpdateConfigDto })
  @IsOptional() @ValidateNested() @Type(() => UpdateConfigDto)
  UpdateConfig?: UpdateConfigDto;

  @ApiPropertyOptional({ type: UpdateConfigDto })
  @IsOptional() @ValidateNested() @Type(() => UpdateConfigDto)
  RollbackConfig?: UpdateConfigDto;

  @ApiPropertyOptional({ type: EndpointSpecDto })
  @IsOptional() @ValidateNested() @Type(() => EndpointSpecDto)
  EndpointSpec?: EndpointSpecDto;

  @ApiPropertyOptional({ type: [NetworkAttachmentDto], deprecated: true })
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => NetworkAttachmentDto)
  Networks?: NetworkAttachmentDto[];
}
