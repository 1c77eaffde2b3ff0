/** The node description an agent registers with: this host's, or a simulated node's. */
import { arch, cpus, hostname as osHostname, totalmem } from 'node:os';
import type { NodeDescriptionMessage } from '@shoal/protocol';

const ARCHITECTURES: Readonly<Record<string, string>> = { x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', ia32: 'i386' };

/** Node's architecture names as Docker and SwarmKit spell them (x64 → x86_64). */
export const architectureName = (nodeArch: string): string => ARCHITECTURES[nodeArch] ?? nodeArch;

export const NANO_CPUS_PER_CPU = 1_000_000_000;

export interface DescriptionOptions {
  readonly hostname: string;
  readonly nanoCpus: number;
  readonly memoryBytes: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly engineVersion: string;
  readonly os?: string;
  readonly architecture?: string;
}

export const nodeDescription = (options: DescriptionOptions): NodeDescriptionMessage => ({
  hostname: options.hostname,
  platform: { os: options.os ?? 'linux', architecture: options.architecture ?? 'x86_64' },
  nanoCpus: options.nanoCpus,
  memoryBytes: options.memoryBytes,
  generic: [],
  engineVersion: options.engineVersion,
  engineLabels: { ...(options.labels ?? {}) },
  plugins: [],
});

/** This host as it is: its name, platform, CPU count and total memory. */
export const hostDescription = (options: { hostname?: string; labels?: Readonly<Record<string, string>>; engineVersion: string }): NodeDescriptionMessage =>
  nodeDescription({
    hostname: options.hostname ?? osHostname(),
    nanoCpus: cpus().length * NANO_CPUS_PER_CPU,
    memoryBytes: totalmem(),
    labels: options.labels,
    engineVersion: options.engineVersion,
    os: process.platform,
    architecture: architectureName(arch()),
  });

/** `key=value` → [key, value]; a clear error otherwise. */
export const parseLabel = (text: string): [string, string] => {
  const equals = text.indexOf('=');
  if (equals <= 0) throw new Error(`a label is key=value, e.g. zone=a; got "${text}"`);
  return [text.slice(0, equals), text.slice(equals + 1)];
};
