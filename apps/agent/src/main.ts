/**
 * The node agent on its own: `node dist/apps/agent/main.js --join-token … --dispatcher …`
 * (or `--simulate N`), the same as `shoal agent`. A refused join token or bad flags: one
 * line on stderr and exit code 1.
 */
import { agentCommand } from './agent-command';

export * from './index';

export const runMain = (argv: readonly string[]): void => {
  agentCommand('shoal-agent')
    .parseAsync([...argv])
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shoal agent: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
};

if (require.main === module) runMain(process.argv);
