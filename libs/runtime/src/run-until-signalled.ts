/**
 * A component process's life: its logger installed (SHOAL_LOG_LEVEL; installProcessLogger),
 * its traces started when OTEL_TRACES_EXPORTER asks (tracing/tracing.ts), boot the Nest
 * context, stop it cleanly on SIGINT/SIGTERM (its last spans sent), exit 0. A start that fails says
 * why on standard error (through the same logger) and exits 1.
 */
import type { INestApplicationContext } from '@nestjs/common';
import { createLogger, installProcessLogger } from './logger';
import { startTracingFromEnv } from './tracing/tracing';
import type { Tracing } from './tracing/tracing';

/** The longest a stopping process waits for its last spans to be sent. */
const TRACES_FLUSH_MS = 3_000;

const flushed = (tracing: Tracing | undefined): Promise<unknown> =>
  tracing ? Promise.race([tracing.shutdown().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, TRACES_FLUSH_MS).unref())]) : Promise.resolve();

export const runUntilSignalled = (name: string, boot: () => Promise<INestApplicationContext>): void => {
  let tracing: Tracing | undefined;
  try {
    installProcessLogger(name);
    tracing = startTracingFromEnv(name);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const failed = createLogger({ component: name, level: 'error', output: process.stderr });
  boot().then(
    (app) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          app.close().then(
            // The spans still buffered go out before the process does, unless the collector keeps it waiting.
            () => void flushed(tracing).finally(() => process.exit(0)),
            (error: unknown) => {
              failed.error({ err: error }, `${name}: stopping failed: ${String(error)}`);
              process.exit(1);
            },
          );
        });
      }
    },
    (error: unknown) => {
      failed.fatal({ err: error }, `${name}: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
};
