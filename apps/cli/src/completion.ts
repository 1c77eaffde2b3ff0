/**
 * Shell completion for `shoal`, written from the commander tree `cli()` builds, so it names
 * exactly the commands there are: the subcommands at each level, each command's options (and
 * which take a value, and its choices), and the choices of its arguments (`shoal run
 * <component>`). The script is a set of lookup tables keyed by the command path ("shoal
 * audit") and one function that walks the words typed so far through them.
 *   bash: source <(shoal completion bash)
 *   zsh:  shoal completion zsh > "${fpath[1]}/_shoal"   (or source <(shoal completion zsh))
 */
import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

export interface OptionEntry {
  /** The long and the short flag, as typed: ["--to"], ["-h", "--help"]. */
  readonly flags: readonly string[];
  readonly description: string;
  /** A value must follow it (`--to <offset>`): the next word is that value, not a command. */
  readonly takesValue: boolean;
  readonly choices: readonly string[];
}

export interface Level {
  /** The command's path from the root: ["shoal", "audit", "replay"]. */
  readonly path: readonly string[];
  readonly description: string;
  readonly aliases: readonly string[];
  readonly commands: readonly Level[];
  readonly options: readonly OptionEntry[];
  /** The choices of each positional argument, in order ([] for an argument of any value). */
  readonly arguments: readonly (readonly string[])[];
  /** The last argument takes any number of words. */
  readonly variadic: boolean;
}

/** The tree as completion sees it: what `--help` shows at each level. */
export const levels = (command: Command, parent: readonly string[] = []): Level => {
  const help = command.createHelp();
  const path = [...parent, command.name()];
  return {
    path,
    description: command.description(),
    aliases: command.aliases(),
    commands: help.visibleCommands(command).map((sub) => (command.commands.includes(sub) ? levels(sub, path) : helpLevel(sub, path, command))),
    options: help.visibleOptions(command).map((option) => ({
      flags: [option.short, option.long].filter((flag): flag is string => Boolean(flag)),
      description: option.description,
      takesValue: option.required,
      choices: option.argChoices ?? [],
    })),
    arguments: command.registeredArguments.map((argument) => argument.argChoices ?? []),
    variadic: command.registeredArguments.some((argument) => argument.variadic),
  };
};

/** commander's own `help [command]` (not one of `.commands`): its argument is a sibling's name. */
const helpLevel = (help: Command, path: readonly string[], parent: Command): Level => ({
  ...levels(help, path),
  arguments: [parent.commands.map((sibling) => sibling.name())],
});

const everyLevel = (level: Level): Level[] => [level, ...level.commands.flatMap(everyLevel)];

/** A word in single quotes, safe in either shell whatever it holds. */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** One line of a description, for zsh's menu: `name:description` with the name's colons escaped. */
const described = (name: string, description: string): string => `${name.replace(/:/g, '\\:')}:${description.split('\n')[0]}`;

const key = (level: Level): string => level.path.join(' ');
/** A command's own name, the last of its path. */
const nameOf = (level: Level): string => level.path[level.path.length - 1]!;

/** `name() { case "$1|$2" in 'a|b') body ;; ... esac }`: a lookup table in shell. */
const table = (name: string, comment: string, rows: readonly (readonly [string, string])[], otherwise: string): string =>
  [
    `# ${comment}`,
    `${name}() {`,
    '  case "$1|$2" in',
    ...rows.map(([match, body]) => `    ${quote(match)}) ${body} ;;`),
    `    *) ${otherwise} ;;`,
    '  esac',
    '}',
  ].join('\n');

const list = (words: readonly string[]): string => (words.length > 0 ? `printf '%s\\n' ${words.map(quote).join(' ')}` : ':');

/** The tables both shells share; `describe` adds zsh's descriptions to what is listed. */
const tables = (fn: string, all: readonly Level[], describe: boolean): string[] => [
  table(
    `${fn}_command_of`,
    'the command a word names under a path (by its name or an alias); fails for any other word',
    all.flatMap((level) => level.commands.flatMap((sub) => [nameOf(sub), ...sub.aliases].map((word) => [`${key(level)}|${word}`, `echo ${quote(nameOf(sub))}`] as const))),
    'return 1',
  ),
  table(
    `${fn}_commands`,
    'the subcommands under a path, one per line',
    all.filter((level) => level.commands.length > 0).map((level) => [`${key(level)}|`, list(level.commands.map((sub) => (describe ? described(nameOf(sub), sub.description) : nameOf(sub))))] as const),
    ':',
  ),
  table(
    `${fn}_options`,
    "a command's options, one per line",
    all.map((level) => [`${key(level)}|`, list(level.options.flatMap((option) => option.flags.map((flag) => (describe ? described(flag, option.description) : flag))))] as const),
    ':',
  ),
  table(
    `${fn}_takes_value`,
    'succeeds for an option that a value must follow',
    all.flatMap((level) => level.options.filter((option) => option.takesValue).flatMap((option) => option.flags.map((flag) => [`${key(level)}|${flag}`, 'return 0'] as const))),
    'return 1',
  ),
  table(
    `${fn}_option_choices`,
    "the values an option takes, one per line (none: any value, e.g. a file's name)",
    all.flatMap((level) => level.options.filter((option) => option.choices.length > 0).flatMap((option) => option.flags.map((flag) => [`${key(level)}|${flag}`, list(option.choices)] as const))),
    ':',
  ),
  table(
    `${fn}_argument_count`,
    "how many positional arguments a command takes (a variadic last one: many)",
    all.filter((level) => level.arguments.length > 0).map((level) => [`${key(level)}|`, `echo ${level.variadic ? 1000 : level.arguments.length}`] as const),
    'echo 0',
  ),
  table(
    `${fn}_argument_choices`,
    'the values the nth positional argument takes, one per line (none: any value)',
    all.flatMap((level) => level.arguments.map((choices, i) => [`${key(level)}|${i + 1}`, list(choices)] as const).filter(([, body]) => body !== ':')),
    ':',
  ),
];

/** A shell function name from the program's: `shoal` → `_shoal`. */
const functionName = (root: Level): string => `_${root.path[0]!.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * The walk, the same in both shells: through the words before the cursor, following
 * subcommands from the root, skipping each option's value (`--to 40`, and `--to = 40` as bash
 * splits `--to=40`), counting positional arguments.
 */
const walk = (fn: string, words: string, first: string, current: string, root: string): string[] => [
  `  local at=${quote(root)} word='' option='' name=''`,
  `  local -i i=${first} position=0`,
  `  while (( i < ${current} )); do`,
  `    word="\${${words}[i]}"`,
  '    if [[ "$word" == -* ]]; then',
  `      if [[ "$word" != *=* ]] && ${fn}_takes_value "$at" "$word"; then`,
  `        if [[ "\${${words}[i+1]}" == "=" ]] && (( i + 1 < ${current} )); then (( i++ )); fi`,
  `        if (( i + 1 == ${current} )); then option="$word"; fi`,
  '        (( i++ ))',
  '      fi',
  `    elif (( position == 0 )) && name="$(${fn}_command_of "$at" "$word")"; then`,
  '      at="$at $name"',
  '    else',
  '      (( position++ ))',
  '    fi',
  '    (( i++ ))',
  '  done',
];

export const bashCompletion = (program: Command): string => {
  const root = levels(program);
  const fn = functionName(root);
  const name = root.path[0]!;
  return [
    `# bash completion for ${name}, written by \`${name} completion bash\` from its commands.`,
    `# Install: source <(${name} completion bash)   (in ~/.bashrc, for every shell)`,
    '',
    ...tables(fn, everyLevel(root), false).flatMap((text) => [text, '']),
    `${fn}() {`,
    '  local IFS=$\'\\n\'',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" words=\'\'',
    ...walk(fn, 'COMP_WORDS', '1', 'COMP_CWORD', name),
    '  # Right after `--executor=` bash has "=" as the word: the value starts empty.',
    '  if [[ -n "$option" && "$cur" == "=" ]]; then cur=\'\'; fi',
    '  COMPREPLY=()',
    '  if [[ -n "$option" ]]; then',
    `    words="$(${fn}_option_choices "$at" "$option")"`,
    '  elif [[ "$cur" == -* ]]; then',
    `    words="$(${fn}_options "$at")"`,
    '  else',
    `    (( position == 0 )) && words="$(${fn}_commands "$at")"`,
    `    if [[ -z "$words" ]] && (( position < $(${fn}_argument_count "$at") )); then`,
    `      words="$(${fn}_argument_choices "$at" $(( position + 1 )))"`,
    '      if [[ -z "$words" ]]; then',
    '        # An argument of any value: a file, most likely.',
    '        compopt -o filenames 2>/dev/null',
    '        COMPREPLY=( $(compgen -f -- "$cur") )',
    '        return 0',
    '      fi',
    `    elif [[ -z "$words" ]]; then`,
    `      words="$(${fn}_options "$at")"`,
    '    fi',
    '  fi',
    '  if [[ -n "$option" && -z "$words" ]]; then',
    '    compopt -o filenames 2>/dev/null',
    '    COMPREPLY=( $(compgen -f -- "$cur") )',
    '  else',
    '    COMPREPLY=( $(compgen -W "$words" -- "$cur") )',
    '  fi',
    '  return 0',
    '}',
    '',
    `complete -F ${fn} ${name}`,
    '',
  ].join('\n');
};

export const zshCompletion = (program: Command): string => {
  const root = levels(program);
  const fn = functionName(root);
  const name = root.path[0]!;
  return [
    `#compdef ${name}`,
    `# zsh completion for ${name}, written by \`${name} completion zsh\` from its commands.`,
    `# Install: ${name} completion zsh > "\${fpath[1]}/${fn}"   (then start a new shell)`,
    `#      or: source <(${name} completion zsh)   (after compinit)`,
    '',
    ...tables(fn, everyLevel(root), true).flatMap((text) => [text, '']),
    `${fn}() {`,
    // zsh's words are 1-based: words[1] is the program, words[CURRENT] the word being completed.
    '  local cur="${words[CURRENT]}"',
    '  local -a found',
    ...walk(fn, 'words', '2', 'CURRENT', name),
    '  if [[ -n "$option" ]]; then',
    `    found=( \${(f)"$(${fn}_option_choices "$at" "$option")"} )`,
    '    if (( ${#found} )); then compadd -a found; else _files; fi',
    '  elif [[ "$cur" == -* ]]; then',
    `    found=( \${(f)"$(${fn}_options "$at")"} )`,
    "    _describe -t options 'option' found",
    '  else',
    `    (( position == 0 )) && found=( \${(f)"$(${fn}_commands "$at")"} )`,
    '    if (( ${#found} )); then',
    "      _describe -t commands 'command' found",
    `    elif (( position < $(${fn}_argument_count "$at") )); then`,
    `      found=( \${(f)"$(${fn}_argument_choices "$at" $(( position + 1 )))"} )`,
    '      if (( ${#found} )); then compadd -a found; else _files; fi',
    '    else',
    `      found=( \${(f)"$(${fn}_options "$at")"} )`,
    "      _describe -t options 'option' found",
    '    fi',
    '  fi',
    '}',
    '',
    // Loaded from $fpath the file is the function's body; sourced, it registers the function.
    `if [[ "\${funcstack[1]}" == ${quote(fn)} ]]; then`,
    `  ${fn} "$@"`,
    'else',
    `  compdef ${fn} ${name}`,
    'fi',
    '',
  ].join('\n');
};

export const completionScript = (shell: Shell, program: Command): string => (shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
