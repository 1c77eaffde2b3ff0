/**
 * Docker's /secrets: Shoal has none, so the list is empty (what `docker stack rm` and
 * `docker stack deploy` look through) and creating one is refused. Configs are served by
 * `../configs/`.
 */
import { Controller, Get, HttpException, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

@ApiTags('docker: secrets')
@Controller('secrets')
export class SecretsController {
  @Get()
  @ApiOperation({ summary: 'Always empty: Shoal has no secrets' })
  list(): [] {
    return [];
  }

  @Post('create')
  @ApiOperation({ summary: 'Not supported (400)' })
  create(): never {
    throw new HttpException('secrets are not supported by Shoal', 400);
  }
}
