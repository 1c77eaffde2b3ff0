/**
 * `shoal completion`: the scripts are written from the command tree `cli()` builds. bash runs
 * the script, as it would on <Tab>, and must offer what the tree holds: the commands at every
 * level, a command's options, an option's choices, `shoal run`'s components, files for a
 * value of any kind. Both scripts must parse in their shell, and are run in it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { RUNNABLE, cli } from './main';
import { SHELLS, bashCompletion, zshCompletion } from './completion';

const program = cli();
const bash = bashCompletion(program);
const zsh = zshCompletion(program);

/** The command at a path under the root: ('audit', 'verify'). */
const at = (...path: string[]): Command =>
  path.reduce((command, name) => {
    const sub = command.commands.find((candidate) => candidate.name() === name);
    if (!sub) throw new Error(`no command ${name} under ${command.name()}`);
    return sub;
  }, program);

/** What `--help` lists under a command: its subcommands (and commander's help). */
const subcommands = (command: Command): string[] => command.createHelp().visibleCommands(command).map((sub) => sub.name());
const flags = (command: Command): string[] => command.createHelp().visibleOptions(command).flatMap((option) => [option.short, option.long].filter((flag): flag is string => Boolean(flag)));
const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
const pathOf = (command: Command): string[] => (command.parent ? [...pathOf(command.parent), command.name()] : []);

describe('shoal completion bash', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'shoal-completion-'));
  writeFileSync(join(cwd, 'key.pem'), '');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  /** What bash offers when <Tab> is pressed after `words` (the last is the word under the cursor). */
  const complete = (...words: string[]): string[] => {
    const run = `${bash}\nCOMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _shoal; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', run, 'bash', ...words], { cwd, encoding: 'utf8' });
    return out.split('\n').filter(Boolean);
  };

  it('completes a command from its first letters', () => {
    expect(complete('shoal', 'au')).toEqual(subcommands(program).filter((name) => name.startsWith('au')));
    expect(complete('shoal', 'au')).toEqual(['audit']);
  });

  it('offers the subcommands of every command that has them, as the tree has them', () => {
    const parents = everyCommand(program).filter((command) => command.commands.length > 0);
    expect(parents.map((command) => command.name())).toEqual(expect.arrayContaining(['shoal', 'audit', 'certs', 'ca']));
    for (const command of parents) {
      expect({ path: pathOf(command), offered: complete('shoal', ...pathOf(command), '') }).toEqual({ path: pathOf(command), offered: subcommands(command) });
    }
    expect(complete('shoal', 'audit', '')).toEqual(expect.arrayContaining(at('audit').commands.map((command) => command.name())));
  });

  it("offers the components of `shoal run`", () => {
    expect(complete('shoal', 'run', '')).toEqual([...RUNNABLE]);
    expect(complete('shoal', 'run', 'a')).toEqual(RUNNABLE.filter((name) => name.startsWith('a')));
  });

  it('offers the shells of `shoal completion`', () => {
    expect(complete('shoal', 'completion', '')).toEqual([...SHELLS]);
  });

  it("offers a subcommand's options after a dash", () => {
    for (const path of [['audit', 'verify'], ['audit', 'replay'], ['agent'], ['certs', 'issue']]) {
      expect(complete('shoal', ...path, '-')).toEqual(flags(at(...path)));
    }
    expect(complete('shoal', 'audit', 'verify', '--')).toEqual(flags(at('audit', 'verify')).filter((flag) => flag.startsWith('--')));
  });

  it("offers an option's choices after it, also after bash splits --option=value", () => {
    const executor = at('agent').options.find((option) => option.long === '--executor')!;
    expect(executor.argChoices?.length).toBeGreaterThan(0);
    expect(complete('shoal', 'agent', '--executor', '')).toEqual(executor.argChoices);
    expect(complete('shoal', 'agent', '--executor', '=', '')).toEqual(executor.argChoices);
    expect(complete('shoal', 'agent', '--executor', '=')).toEqual(executor.argChoices);
    const role = at('certs', 'issue').options.find((option) => option.long === '--role')!;
    expect(complete('shoal', 'certs', 'issue', '--cn', 'alice', '--role', '')).toEqual(role.argChoices);
  });

  it("skips an option's value, so that it is taken for neither a command nor an argument", () => {
    expect(complete('shoal', 'audit', 'replay', '--to', '40', '--j')).toEqual(['--json']);
    expect(complete('shoal', 'agent', '--simulate', '3', '--executor', 'd')).toEqual(['docker']);
    expect(complete('shoal', 'audit', 'replay', '--to', '=', '40', '--j')).toEqual(['--json']);
  });

  it('offers files for a value or an argument of any kind', () => {
    expect(complete('shoal', 'audit', 'verify', '--key', 'k')).toEqual(['key.pem']);
    expect(complete('shoal', 'audit', 'keygen', 'k')).toEqual(['key.pem']);
  });

  it("offers a command's options where it takes no more arguments", () => {
    expect(complete('shoal', 'audit', 'replay', '')).toEqual(flags(at('audit', 'replay')));
  });

  it('offers the commands `help` can explain', () => {
    expect(complete('shoal', 'audit', 'help', '')).toEqual(at('audit').commands.map((command) => command.name()));
  });

  it('offers nothing for a word that names nothing', () => {
    expect(complete('shoal', 'nosuch')).toEqual([]);
    expect(complete('shoal', 'audit', 'replay', '--nosuch')).toEqual([]);
  });

  it('is a script bash accepts, registered for shoal', () => {
    expect(spawnSync('bash', ['-n'], { input: bash }).status).toBe(0);
    const registered = execFileSync('bash', ['--norc', '--noprofile', '-c', `${bash}\ncomplete -p shoal`], { encoding: 'utf8' });
    expect(registered.trim()).toBe('complete -F _shoal shoal');
  });
});

describe('shoal completion zsh', () => {
  beforeAll(() => {
    if (spawnSync('which', ['zsh']).status !== 0) throw new Error('zsh is not installed: bash infra/docker/install.sh installs it (apt-get install zsh)');
  });

  it('is a completion function for shoal', () => {
    expect(zsh.startsWith('#compdef shoal\n')).toBe(true);
    for (const name of [...subcommands(program), ...RUNNABLE, ...flags(at('audit', 'verify'))]) expect(zsh).toContain(`'${name}`);
  });

  it('is a script zsh accepts', () => {
    expect(spawnSync('zsh', ['-n'], { input: zsh }).status).toBe(0);
  });

  it('offers, run by zsh, the subcommands, options and choices of the tree', () => {
    // The completion system's own functions stand in as ones that print what they are given.
    const stubs = [
      'compdef() { :; }',
      '_describe() { print -l -- "${(@P)4%%:*}"; }',
      'compadd() { print -l -- "${(@P)2}"; }',
      '_files() { print -- "(files)"; }',
    ].join('\n');
    const complete = (...typed: string[]): string[] => {
      const run = `${stubs}\n${zsh}\nwords=("$@"); CURRENT=$#; _shoal`;
      return execFileSync('zsh', ['-f', '-c', run, 'zsh', ...typed], { encoding: 'utf8' }).split('\n').filter(Boolean);
    };
    expect(complete('shoal', 'audit', '')).toEqual(subcommands(at('audit')));
    expect(complete('shoal', 'run', '')).toEqual([...RUNNABLE]);
    expect(complete('shoal', 'audit', 'verify', '-')).toEqual(flags(at('audit', 'verify')));
    expect(complete('shoal', 'agent', '--executor', '')).toEqual(at('agent').options.find((option) => option.long === '--executor')!.argChoices);
    expect(complete('shoal', 'audit', 'keygen', '')).toEqual(['(files)']);
  });
});

describe('shoal completion', () => {
  it('prints the script for the shell asked for, from the tree', async () => {
    const chunks: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    });
    try {
      await cli().parseAsync(['node', 'shoal', 'completion', 'bash']);
    } finally {
      write.mockRestore();
    }
    expect(chunks.join('')).toBe(bash);
  });
});
