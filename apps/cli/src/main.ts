/**
 * shoal — the command line.
 *   shoal run <component>                        one component as its own process
 *   shoal audit replay [--to OFFSET] [--json]   the state and its hash at an offset
 *   shoal audit verify [--json]                  replay twice and from snapshots; agree?
 *   shoal agent --join-token T --dispatcher H:P  a node agent on this host (or --simulate N nodes)
 * The log: Kafka when KAFKA_BROKERS is set, else the embedded log in $SHOAL_DATA_DIR.
 */
import { Argument, Command, InvalidArgumentError } from 'commander';
import { auditReplay } from './audit-replay';
import { auditVerify } from './audit-verify';
import { agentCommand } from '../../agent/src/agent-command';

/** The components `shoal run` starts; each is also `node dist/apps/<component>/main.js`. */
export const RUNNABLE = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper', 'api'] as const;
type Runnable = (typeof RUNNABLE)[number];

const offset = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative whole number, e.g. --to 1200');
  return Number(value);
};

export const cli = (): Command => {
  const program = new Command('shoal').description('Shoal: a container orchestrator whose store is a Kafka log').showHelpAfterError();
  program
    .command('run')
    .description('run one component as its own process, configured by the environment (KAFKA_BROKERS, SHOAL_*)')
    .addArgument(new Argument('<component>', 'the component to run').choices(RUNNABLE))
    .action(async (component: Runnable) => {
      // Each app's main starts its process when loaded; it runs until SIGINT or SIGTERM.
      await import(`../../${component}/src/main`);
    });
  program.addCommand(agentCommand());
  const audit = program.command('audit').description('rebuild and verify state from the log');
  audit
    .command('replay')
    .description('replay the log and print the state and its hash at an offset')
    .option('--to <offset>', 'replay records before this offset (default: the whole log)', offset)
    .option('--json', 'print the state as JSON')
    .action(async (options: { to?: number; json?: boolean }) => {
      process.exitCode = await auditReplay(options);
    });
  audit
    .command('verify')
    .description('replay the whole log twice and from the latest snapshots; check the hashes agree and list refused records')
    .option('--snapshots <dir>', 'where component snapshots are kept (default: $SHOAL_DATA_DIR/snapshots)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { snapshots?: string; json?: boolean }) => {
      process.exitCode = await auditVerify(options);
    });
  return program;
};

/** Runs the command line on `argv`; a failure is one line on stderr and exit code 1. */
export const runMain = (argv: readonly string[]): void => {
  cli()
    .parseAsync([...argv])
    .catch((error: unknown) => {
      process.stderr.write(`shoal: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
};

if (require.main === module) runMain(process.argv);
