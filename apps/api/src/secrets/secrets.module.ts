/**
 * Docker's /secrets as a Nest module, and the API's cluster keyring (ApiSecretVault), which
 * the swarm's routes (autolock, unlock) use too, and the guard that keeps a locked API from
 * serving the swarm: global. Needs Intents, API_VIEW, API_CONFIG (the API's core) and
 * EVENT_LOG.
 */
import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiSecretVault } from './api-secret-vault';
import { SecretsController } from './secrets.controller';
import { SwarmLockGuard } from './swarm-lock.guard';

@Global()
@Module({ controllers: [SecretsController], providers: [ApiSecretVault, { provide: APP_GUARD, useClass: SwarmLockGuard }], exports: [ApiSecretVault] })
export class SecretsModule {}
