import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The pure core (libs/contracts, libs/domain) may not reach for I/O; lint says so.
// ESLint loads its flat config by dynamic import, which jest's sandbox cannot do, so the
// snippets are linted in one child process.
const root = join(__dirname, '..', '..');

const SNIPPETS: Record<string, { file: string; code: string }> = {
  nodeFs: { file: 'libs/domain/src/example.ts', code: "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n" },
  crypto: { file: 'libs/domain/src/example.ts', code: "import { createHash } from 'crypto';\nexport const x = createHash;\n" },
  kafkajs: { file: 'libs/domain/src/example.ts', code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n" },
  nest: { file: 'libs/contracts/src/example.ts', code: "import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n" },
  eventlog: { file: 'libs/domain/src/example.ts', code: "import { EVENT_LOG } from '@shoal/eventlog';\nexport const x = EVENT_LOG;\n" },
  domainInContracts: { file: 'libs/contracts/src/example.ts', code: "import { evolve } from '@shoal/domain';\nexport const x = evolve;\n" },
  shell: { file: 'libs/eventlog/src/example.ts', code: "import { Kafka } from 'kafkajs';\nexport const x = Kafka;\n" },
};

const lintAll = (): Record<string, string[]> => {
  const script = `
    const { ESLint } = require('eslint');
    const snippets = JSON.parse(process.argv[1]);
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = {};
      for (const [name, { file, code }] of Object.entries(snippets)) {
        const [result] = await eslint.lintText(code, { filePath: require('path').join(process.cwd(), file) });
        out[name] = result.messages.map((m) => m.message);
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(SNIPPETS)], { cwd: root, encoding: 'utf8' }));
};

describe('lint keeps the core pure', () => {
  let messages: Record<string, string[]>;
  beforeAll(() => {
    messages = lintAll();
  });

  it.each([
    ['nodeFs', /no Node built-ins/],
    ['crypto', /no Node built-ins/],
    ['kafkajs', /Kafka belongs to libs\/eventlog/],
    ['nest', /Nest stays in the shells/],
    ['eventlog', /may not depend on the event log/],
    ['domainInContracts', /Contracts stand alone/],
  ])('refuses %s in the core', (name, message) => {
    expect(messages[name]?.some((m) => message.test(m))).toBe(true);
  });

  it('allows the same imports in a shell', () => {
    expect(messages.shell).toEqual([]);
  });
});
