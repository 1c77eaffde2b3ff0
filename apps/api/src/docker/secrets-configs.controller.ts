/**
 * Docker's /secrets and /configs: Shoal has neither, so their lists are empty (what
 * `docker stack rm` and `docker stack deploy` look through) and creating one is refused.
 */
import { Controller, Get, HttpException, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

const NOT_SUPPORTED = (kind: string): string => `${kind} are not supported by Shoal`;

@ApiTags('docker: secrets and configs')
@Controller()
export class SecretsConfigsController {
  @Get('secrets')
  @ApiOperation({ summary: 'Always empty: Shoal has no secrets' })
  secrets(): [] {
    return [];
  }

  @Get('configs')
  @ApiOperation({ summary: 'Always empty: Shoal has no configs' })
  configs(): [] {
    return [];
  }

  @Post('secrets/create')
  @ApiOperation({ summary: 'Not supported (400)' })
  createSecret(): never {
    throw new HttpException(NOT_SUPPORTED('secrets'), 400);
  }

  @Post('configs/create')
  @ApiOperation({ summary: 'Not supported (400)' })
  createConfig(): never {
    throw new HttpException(NOT_SUPPORTED('configs'), 400);
  }
}
