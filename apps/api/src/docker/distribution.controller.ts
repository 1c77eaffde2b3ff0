/**
 * Docker's /distribution/{name}/json: Shoal does not talk to registries, so it answers an
 * error; the docker CLI then warns that it could not resolve the image's digest and goes
 * on (each node's agent pulls the image by its tag).
 */
import { Controller, Get, HttpException, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';

@ApiTags('docker: distribution')
@Controller('distribution')
export class DistributionController {
  @Get('*image')
  @ApiOperation({ summary: 'Not supported: Shoal does not resolve image digests (answers 501)' })
  @ApiParam({ name: 'image', description: "An image reference and Docker's /json after it (`nginx:1.27/json`)", schema: { type: 'string' } })
  @ApiResponse({ status: 501, description: 'Shoal does not query registries; each node pulls the image by its reference', content: { 'application/json': { schema: DOCKER_ERROR_SCHEMA } } })
  inspect(@Param('image') image: string | string[]): never {
    const segments = Array.isArray(image) ? image : image.split('/');
    const name = segments.at(-1) === 'json' ? segments.slice(0, -1).join('/') : segments.join('/');
    throw new HttpException(`Shoal does not query registries: no digest for ${name}; each node pulls it by its reference`, 501);
  }
}
