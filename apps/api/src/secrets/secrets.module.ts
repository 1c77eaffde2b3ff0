/** Docker's /secrets as a Nest module; needs Intents, API_VIEW, API_CONFIG (the API's core) and EVENT_LOG. */
import { Module } from '@nestjs/common';
import { ApiSecretVault } from './api-secret-vault';
import { SecretsController } from './secrets.controller';

@Module({ controllers: [SecretsController], providers: [ApiSecretVault] })
export class SecretsModule {}
