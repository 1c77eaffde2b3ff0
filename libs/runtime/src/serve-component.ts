/**
 * A component as its own process: the Nest app (runner, /healthz, /readyz, /statez,
 * /metrics) listening on SHOAL_BIND_HOST (127.0.0.1) : SHOAL_HEALTH_PORT (0 = any free
 * port), stopped cleanly on SIGINT/SIGTERM, logging through the process's logger
 * (runUntilSignalled installs it). It logs one line saying where it listens.
 */
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { componentSettingsFromEnv } from './component-settings';
import { PinoNestLogger, shoalLogger } from './logger';
import { runUntilSignalled } from './run-until-signalled';

export const serveComponent = (name: string, module: Type | DynamicModule, env: NodeJS.ProcessEnv = process.env): void =>
  runUntilSignalled(name, async () => {
    const { host, healthPort } = componentSettingsFromEnv(env, name);
    const app: INestApplication = await NestFactory.create(module, { logger: new PinoNestLogger(shoalLogger()) });
    await app.listen(healthPort, host);
    const address = app.getHttpServer().address() as { port: number };
    const url = `http://${host}:${address.port}`;
    shoalLogger().info({ url }, `${name}: health on ${url}/healthz, readiness on /readyz, metrics on /metrics`);
    return app;
  });
