/** Docker's TaskSpec (a service's TaskTemplate), validated field by field. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { MAX_FILE_MODE, RESTART_CONDITIONS } from '@shoal/contracts';

export class ConfigFileTargetDto {
  @ApiPropertyOptional({ example: '/etc/app.conf' })
  @IsOptional() @IsString()
  Name?: string;

  @ApiPropertyOptional({ example: '0', description: 'Default "0"' })
  @IsOptional() @IsString()
  UID?: string;

  @ApiPropertyOptional({ example: '0', description: 'Default "0"' })
  @IsOptional() @IsString()
  GID?: string;

  @ApiPropertyOptional({ example: 0o444, description: 'Permission bits; default 0444' })
  @IsOptional() @IsInt() @Min(0) @Max(MAX_FILE_MODE)
  Mode?: number;
}

/** Presence (an id, a name, a file target) is the mapper's to check, with Docker's reasons. */
export class ConfigReferenceDto {
  @ApiPropertyOptional({ type: ConfigFileTargetDto })
  @IsOptional() @ValidateNested() @Type(() => ConfigFileTargetDto)
  File?: ConfigFileTargetDto;

  @ApiPropertyOptional({ description: 'Not supported by Shoal (credential specs)' })
  @IsOptional() @IsObject()
  Runtime?: Record<string, unknown>;

  @ApiPropertyOptional()
  @IsOptional() @IsString()
  ConfigID?: string;

  @ApiPropertyOptional({ example: 'app-conf' })
  @IsOptional() @IsString()
  ConfigName?: string;
}

export class ContainerSpecDto {
  @ApiProperty({ example: 'nginx:1.27' })
  @IsString() @IsNotEmpty()
  Image!: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional() @IsArray() @IsString({ each: true })
  Command?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional() @IsArray() @IsString({ each: true })
  Args?: string[];

  @ApiPropertyOptional({ type: [String], example: ['KEY=value'] })
  @IsOptional() @IsArray() @IsString({ each: true })
  Env?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional() @IsObject()
  Labels?: Record<string, string>;

  @IsOptional() @IsString()
  Dir?: string;

  @IsOptional() @IsString()
  User?: string;

  @IsOptional() @IsString()
  Hostname?: string;

  @ApiPropertyOptional({ description: 'Nanoseconds' })
  @IsOptional() @IsInt() @Min(0)
  StopGracePeriod?: number;

  @ApiPropertyOptional({ type: [ConfigReferenceDto] })
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => ConfigReferenceDto)
  Configs?: ConfigReferenceDto[];
}

export class ResourcesDto {
  @ApiPropertyOptional({ description: 'CPU in units of 1e-9 CPUs' })
  @IsOptional() @IsInt() @Min(0)
  NanoCPUs?: number;

  @IsOptional() @IsInt() @Min(0)
  MemoryBytes?: number;

  @IsOptional() @IsArray()
  GenericResources?: unknown[];
}

export class ResourceRequirementsDto {
  @ApiPropertyOptional({ type: ResourcesDto })
  @IsOptional() @ValidateNested() @Type(() => ResourcesDto)
  Limits?: ResourcesDto;

  @ApiPropertyOptional({ type: ResourcesDto })
  @IsOptional() @ValidateNested() @Type(() => ResourcesDto)
  Reservations?: ResourcesDto;
}

export class RestartPolicyDto {
  @ApiPropertyOptional({ enum: RESTART_CONDITIONS })
  @IsOptional() @IsIn([...RESTART_CONDITIONS])
  Condition?: string;

  @ApiPropertyOptional({ description: 'Nanoseconds' })
  @IsOptional() @IsInt() @Min(0)
  Delay?: number;

  @IsOptional() @IsInt() @Min(0)
  MaxAttempts?: number;

  @ApiPropertyOptional({ description: 'Nanoseconds' })
  @IsOptional() @IsInt() @Min(0)
  Window?: number;
}

export class SpreadDto {
  @IsString() @IsNotEmpty()
  SpreadDescriptor!: string;
}

export class PreferenceDto {
  @ValidateNested() @Type(() => SpreadDto)
  Spread!: SpreadDto;
}

export class PlatformDto {
  @IsOptional() @IsString()
  Architecture?: string;

  @IsOptional() @IsString()
  OS?: string;
}

export class PlacementDto {
  @ApiPropertyOptional({ type: [String], example: ['node.labels.zone==east'] })
  @IsOptional() @IsArray() @IsString({ each: true })
  Constraints?: string[];

  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => PreferenceDto)
  Preferences?: PreferenceDto[];

  @IsOptional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER)
  MaxReplicas?: number;

  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => PlatformDto)
  Platforms?: PlatformDto[];
}

export class NetworkAttachmentDto {
  @IsString() @IsNotEmpty()
  Target!: string;

  @IsOptional() @IsArray() @IsString({ each: true })
  Aliases?: string[];
}

export class TaskTemplateDto {
  @ApiProperty({ type: ContainerSpecDto })
  @ValidateNested() @Type(() => ContainerSpecDto)
  ContainerSpec!: ContainerSpecDto;

  @ApiPropertyOptional({ type: ResourceRequirementsDto })
  @IsOptional() @ValidateNested() @Type(() => ResourceRequirementsDto)
  Resources?: ResourceRequirementsDto;

  @ApiPropertyOptional({ type: RestartPolicyDto })
  @IsOptional() @ValidateNested() @Type(() => RestartPolicyDto)
  RestartPolicy?: RestartPolicyDto;

  @ApiPropertyOptional({ type: PlacementDto })
  @IsOptional() @ValidateNested() @Type(() => PlacementDto)
  Placement?: PlacementDto;

  @ApiPropertyOptional({ type: [NetworkAttachmentDto] })
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => NetworkAttachmentDto)
  Networks?: NetworkAttachmentDto[];

  @IsOptional() @IsInt() @Min(0)
  ForceUpdate?: number;
}
