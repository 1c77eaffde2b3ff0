/**
 * shoal — the command line.
 *   shoal audit replay [--to OFFSET] [--json]   the state and its hash at an offset
 *   shoal audit verify [--json]                  replay twice and from snapshots; agree?
 * The log: Kafka when KAFKA_BROKERS is set, else the embedded log in $SHOAL_DATA_DIR.
 */
import { Command, InvalidArgumentError } from 'commander';
import { auditReplay } from './audit-replay';
import { auditVerify } from './audit-verify';

const offset = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative whole number, e.g. --to 1200');
  return Number(value);
};

export const cli = (): Command => {
  const program = new Command('shoal').description('Shoal: a container orchestrator whose store is a Kafka log').showHelpAfterError();
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

if (require.main === module) {
  cli()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      process.stderr.write(`shoal: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
