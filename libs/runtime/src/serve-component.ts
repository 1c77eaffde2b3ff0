/**
 * A component as its own process: the Nest app (runner, /healthz, /readyz) listening on
 * SHOAL_BIND_HOST (127.0.0.1) : SHOAL_HEALTH_PORT (0 = any free port), stopped cleanly on
 * SIGINT/SIGTERM. It prints one line saying where it listens.
 */
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { componentSettingsFromEnv } from './component-settings';
import { runUntilSignalled } from './run-until-signalled';

export const serveComponent = (name: string, module: Type | DynamicModule, env: NodeJS.ProcessEnv = process.env): void =>
  runUntilSignalled(name, async () => {
    const { host, healthPort } = componentSettingsFromEnv(env, name);
    const app: INestApplication = await NestFactory.create(module, { logger: ['error', 'warn', 'log'] });
    await app.listen(healthPort, host);
    const address = app.getHttpServer().address() as { port: number };
    process.stdout.write(`${name}: health on http://${host}:${address.port}/healthz, readiness on /readyz\n`);
    return app;
  });
