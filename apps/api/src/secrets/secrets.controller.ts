/**
 * Docker's /secrets: list (filters), create, inspect (id, name or id prefix; never the
 * data), update (only the labels), remove (refused by evolve while a service uses the
 * secret). A secret is sealed with a data key of its own before it is written
 * (ApiSecretVault), and its data key is destroyed once its removal is applied.
 */
import { timingSafeEqual } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, HttpException, Inject, Logger, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { admitSecretSpec } from '@shoal/domain';
import { newObjectId } from '@shoal/runtime';
import { SECRET_FILTERS, SECRET_SPEC, goDecodeAs, openApiSchema, parseFilters, queryVersion, secretMatches } from '@shoal/docker-api';
import { findSecret } from '../docker/lookup';
import { Intents } from '../intents/intents';
import { ApiSecretVault } from './api-secret-vault';
import { fromDockerSecretCreate, fromDockerSecretUpdate, toDockerSecret } from './secret-mapper';
import type { DockerSecret, DockerSecretBody } from './secret-mapper';

@ApiTags('docker: secrets')
@Controller('secrets')
export class SecretsController {
  private readonly logger = new Logger('secrets');

  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(ApiSecretVault) private readonly vaults: ApiSecretVault,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List secrets (never their data)' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id (prefix), name (prefix), names (exact), label (key or key=value)' })
  list(@Query('filters') raw?: string): DockerSecret[] {
    this.intents.cluster();
    const filters = parseFilters(raw, SECRET_FILTERS);
    return [...this.intents.state.secrets.values()].filter((secret) => secretMatches(filters, secret)).map(toDockerSecret);
  }

  @Post('create')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a secret',
    description: 'Its data is sealed with a data key of its own (kept beside the log, wrapped by the cluster key) and written as SecretCreated; answers once evolve has applied it. Refused (409) when the name is taken.',
  })
  @ApiBody({ schema: openApiSchema(SECRET_SPEC) })
  async create(@Body() body: unknown): Promise<{ ID: string }> {
    this.intents.cluster();
    const { spec, data } = fromDockerSecretCreate(goDecodeAs<DockerSecretBody>(SECRET_SPEC, body));
    const id = newObjectId();
    this.intents.admit(admitSecretSpec(this.intents.state, id, spec));
    const vault = await this.vaults.vault();
    const sealed = await vault.seal(id, data);
    data.fill(0);
    try {
      await this.intents.submit('SecretCreated', { id, spec, data: { sealed } });
    } catch (error) {
      // Refused: it will never be on the log, and neither need its key. An outcome unknown (5xx)
      // may still land: its key stays, and the sweep takes it if the secret never shows.
      const refused = error instanceof HttpException && error.getStatus() < 500;
      if (refused && !this.intents.state.secrets.has(id)) await vault.destroy(id).catch(() => undefined);
      throw error;
    }
    return { ID: id };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a secret (by id, name or id prefix), without its data' })
  inspect(@Param('id') ref: string): DockerSecret {
    this.intents.cluster();
    return toDockerSecret(findSecret(this.intents.state, ref));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: "Update a secret's labels; `version` must be its Version.Index", description: 'The body is the whole SecretSpec: its name may not change, and Data, if sent, must be the bytes it holds.' })
  @ApiBody({ schema: openApiSchema(SECRET_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  async update(@Param('id') ref: string, @Body() body: unknown, @Query('version') rawVersion?: string): Promise<void> {
    this.intents.cluster();
    const version = queryVersion(rawVersion);
    const secret = findSecret(this.intents.state, ref);
    const spec = await fromDockerSecretUpdate(goDecodeAs<DockerSecretBody>(SECRET_SPEC, body), secret, async (data) => {
      const own = await (await this.vaults.vault()).open(secret.id, secret.data.sealed);
      try {
        return own.length === data.length && timingSafeEqual(own, data);
      } finally {
        own.fill(0);
      }
    });
    await this.intents.submit('SecretUpdated', { id: secret.id, spec }, { secretVersions: { [secret.id]: version } });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a secret, and destroy its data key', description: "Refused (400, as Docker) while a service's spec uses it. Once removed, its sealed data on the log can never be opened again." })
  async remove(@Param('id') ref: string): Promise<void> {
    this.intents.cluster();
    const secret = findSecret(this.intents.state, ref);
    const vault = await this.vaults.vault();
    await this.intents.submit('SecretRemoved', { id: secret.id });
    await vault.destroy(secret.id).catch((error: unknown) => {
      // Removed on the log: the next sweep destroys the key (ApiSecretVault).
      this.logger.warn(`secret ${secret.id} is removed but its data key is not destroyed yet: ${(error as Error).message}`);
    });
  }
}
