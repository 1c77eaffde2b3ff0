/** A component process's life: boot the Nest context, stop it cleanly on SIGINT/SIGTERM, exit 0. */
import type { INestApplicationContext } from '@nestjs/common';

export const runUntilSignalled = (name: string, boot: () => Promise<INestApplicationContext>): void => {
  boot().then(
    (app) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          app.close().then(
            () => process.exit(0),
            (error: unknown) => {
              process.stderr.write(`${name}: stopping failed: ${String(error)}\n`);
              process.exit(1);
            },
          );
        });
      }
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
};
