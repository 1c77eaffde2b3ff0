/** Docker's NetworkCreateRequest (`docker network create`), validated: 400 with the field and the reason. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIP, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateBy, ValidateNested } from 'class-validator';
import { ipamSubnet } from './ipam';

/** SwarmKit's rule for object names: a DNS name component. */
export const NETWORK_NAME = /^[a-zA-Z0-9](?:[-_.]*[A-Za-z0-9]+)*$/;

export class IpamConfigDto {
  @ApiPropertyOptional({ example: '10.0.9.0/24' })
  @IsOptional()
  @IsString()
  @ValidateBy({
    name: 'cidr',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && ipamSubnet(value) !== undefined,
      defaultMessage: () => 'must be an IPv4 subnet in CIDR notation with no host bits set (e.g. 10.0.9.0/24)',
    },
  })
  Subnet?: string;

  @ApiPropertyOptional({ example: '10.0.9.1' })
  @IsOptional()
  @IsIP('4', { message: 'must be an IPv4 address' })
  Gateway?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  IPRange?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  AuxiliaryAddresses?: Record<string, string>;
}

export class IpamDto {
  @ApiPropertyOptional({ example: 'default' })
  @IsOptional()
  @IsString()
  Driver?: string;

  @ApiPropertyOptional({ type: [IpamConfigDto] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => IpamConfigDto)
  Config?: IpamConfigDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  Options?: Record<string, string>;
}

export class NetworkCreateDto {
  @ApiProperty({ example: 'backend' })
  @IsString()
  @MaxLength(63)
  @Matches(NETWORK_NAME, { message: 'must be valid as a DNS name component (letters, digits, "-", "_" and ".", starting and ending with a letter or digit)' })
  Name!: string;

  @ApiPropertyOptional({ example: 'overlay', description: 'Only overlay: Shoal\'s networks are swarm-scoped.' })
  @IsOptional()
  @IsString()
  Driver?: string;

  @ApiPropertyOptional({ example: 'swarm' })
  @IsOptional()
  @IsString()
  Scope?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  Internal?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  Attachable?: boolean;

  @ApiPropertyOptional({ description: 'The routing-mesh network (one per cluster).' })
  @IsOptional()
  @IsBoolean()
  Ingress?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  EnableIPv6?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  EnableIPv4?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  ConfigOnly?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  CheckDuplicate?: boolean;

  @ApiPropertyOptional({ type: IpamDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => IpamDto)
  IPAM?: IpamDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  Options?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  Labels?: Record<string, string>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsObject()
  ConfigFrom?: { Network?: string };
}
