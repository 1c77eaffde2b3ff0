/**
 * shoal — the command line.
 *   shoal run <component>                        one component as its own process
 *   shoal audit replay [--to OFFSET | --at TIME] [--snapshots DIR] [--from-scratch] [--json]   the state and its hash at a point
 *   shoal audit verify [--key PEM] [--expect P] [--workers N] [--json]  the signed checkpoints hold; replays agree?
 *   shoal audit report [--from T1] [--to T2] [--format json|html]  who changed what, refusals, nodes, failures, proof
 *   shoal audit story <id> [--index DIR] [--rebuild] [--from-log] [--json]  every record that touched a task, service, node…, from the story index
 *   shoal audit index [--index DIR] [--rebuild] [--snapshots-every N]  build the story index, or bring it up to the log's end
 *   shoal audit keygen <file>                    a new Ed25519 key for the audit checkpoints
 *   shoal agent --join-token T --dispatcher H:P  a node agent on this host (or --simulate N nodes)
 *   shoal certs ca init | issue | server         the cluster CA and certificates for the API's TLS
 *   shoal completion bash|zsh                    a completion script for the shell, from these commands
 * The log: Kafka when KAFKA_BROKERS is set, else the embedded log in $SHOAL_DATA_DIR.
 */
import { Argument, Command, InvalidArgumentError } from 'commander';
import { auditReplay } from './audit-replay';
import type { AuditReplayOptions } from './audit-replay';
import { auditVerify } from './audit-verify';
import { parseWorkers } from './audit-proof-options';
import { auditReportCommand } from './audit-report';
import { auditKeygen } from './audit-keygen';
import { auditIndex, auditStory } from './audit-story';
import type { AuditIndexOptions, AuditStoryOptions } from './audit-story';
import { agentCommand } from '../../agent/src/agent-command';
import { certsCommand } from './certs/certs-command';
import { SHELLS, completionScript } from './completion';
import type { Shell } from './completion';

/** The components `shoal run` starts; each is also `node dist/apps/<component>/main.js`. */
export const RUNNABLE = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper', 'api'] as const;
type Runnable = (typeof RUNNABLE)[number];

const offset = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative whole number, e.g. --to 1200');
  return Number(value);
};

const parseRecords = (value: string): number => {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a positive whole number, e.g. --snapshots-every 25000');
  return Number(value);
};

export const cli = (): Command => {
  const program = new Command('shoal').description('Shoal: a container orchestrator whose store is a Kafka log').showHelpAfterError();
  program
    .command('run')
    .description('run one component as its own process, configured by the environment (KAFKA_BROKERS, SHOAL_*)')
    .addArgument(new Argument('<component>', 'the component to run').choices(RUNNABLE))
    // The component reads its own flags (`shoal run api --host 0.0.0.0 --tlsverify …`).
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (component: Runnable, _options: unknown, command: Command) => {
      const extra = command.args.slice(1);
      if (component !== 'api' && extra.length > 0) throw new Error(`shoal run ${component} takes no flags (${extra.join(' ')}): it is configured by the environment`);
      // Each app's main starts its process when loaded; it runs until SIGINT or SIGTERM.
      await import(`../../${component}/src/main`);
    });
  program.addCommand(agentCommand());
  program.addCommand(certsCommand());
  const audit = program.command('audit').description('rebuild and verify state from the log');
  audit
    .command('replay')
    .description('print the state and its hash at a point of the log: from the newest snapshot at or before it, then the records after it')
    .option('--to <offset>', 'replay records before this offset (default: the whole log)', offset)
    .option('--at <time>', 'replay the records written at or before this time (ISO date or Unix seconds)')
    .option('--snapshots <dir>', 'where the components keep their snapshots (default: $SHOAL_DATA_DIR/snapshots)')
    .option('--from-scratch', 'replay from the first record, whatever snapshots there are')
    .option('--json', 'print the state as JSON')
    .action(async (options: AuditReplayOptions) => {
      process.exitCode = await auditReplay(options);
    });
  audit
    .command('verify')
    .description('check the audit chain and every signed checkpoint (signature, chain hash, state hash), name the first offset where the log differs from what was signed; replay twice and from the latest snapshots')
    .option('--key <pem>', "the operator's checkpoint key (PEM, either half); default: the first checkpoint's, trusted on first use")
    .option('--expect <point>', "the chain a previous verify reported, as <offset>:<chain hash> or its --json file: a log cut short of it fails")
    .option('--snapshots <dir>', 'where component snapshots are kept (default: $SHOAL_DATA_DIR/snapshots)')
    .option('--workers <n>', 'threads that check the log by segments between checkpoints (default: one a core; 1: this thread alone)', parseWorkers)
    .option('--json', 'print the report as JSON')
    .action(async (options: { snapshots?: string; json?: boolean; key?: string; expect?: string; workers?: number }) => {
      process.exitCode = await auditVerify(options);
    });
  audit
    .command('report')
    .description('who changed what and when, every refusal and why, nodes that came and went, failed tasks, and the proof of the log')
    .option('--from <time>', 'start of the span (ISO 8601; default: the beginning)')
    .option('--to <time>', 'end of the span (ISO 8601; default: now and on)')
    .option('--format <format>', 'json or html (one self-contained file)', 'json')
    .option('--key <pem>', "the operator's checkpoint key (PEM, either half)")
    .option('--expect <point>', 'the chain a previous verify reported (<offset>:<chain hash> or its --json file)')
    .action(async (options: { from?: string; to?: string; format?: string; key?: string; expect?: string }) => {
      process.exitCode = await auditReportCommand(options);
    });
  audit
    .command('story')
    .description("every record that touched a task, service, node, network, config or secret, with verdicts and the scheduler's reasons, from the story index (built or brought up to date first)")
    .argument('<id>', 'the entity id (a task id in full, a service id, …)')
    .option('--index <dir>', 'where the story index is kept (default: $SHOAL_DATA_DIR/story-index)')
    .option('--rebuild', 'build the index again from offset 0 first')
    .option('--from-log', "read each record from the log, not from the index's copies of them")
    .option('--json', 'print the story as JSON')
    .action(async (id: string, options: AuditStoryOptions) => {
      process.exitCode = await auditStory(id, options);
    });
  audit
    .command('index')
    .description('build the story index by replay, or bring it up to the end of the log (the tail only); it is checked against the log before use')
    .option('--index <dir>', 'where the story index is kept (default: $SHOAL_DATA_DIR/story-index)')
    .option('--rebuild', 'build it again from offset 0')
    .option('--snapshots-every <records>', 'on the way, a snapshot every this many records, all kept, in $SHOAL_DATA_DIR/snapshots/audit: the state at any point is then one of them and at most that many records (shoal audit replay)', parseRecords)
    .action(async (options: AuditIndexOptions) => {
      process.exitCode = await auditIndex(options);
    });
  audit
    .command('keygen')
    .description('write a new Ed25519 private key (PEM) for SHOAL_AUDIT_SIGNING_KEY and print its fingerprint')
    .argument('<file>', 'where to write the key (not overwritten)')
    .action((file: string) => {
      process.exitCode = auditKeygen(file);
    });
  program
    .command('completion')
    .description('print a completion script for the shell: source <(shoal completion bash), or shoal completion zsh > "${fpath[1]}/_shoal"')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action((shell: Shell) => {
      // Written from the tree when asked, so it always names the commands there are.
      process.stdout.write(completionScript(shell, program));
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
