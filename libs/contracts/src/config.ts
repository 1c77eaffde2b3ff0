/**
 * Configs: small files a service's tasks are given (Docker's `docker config`). The data is
 * on the log, in every view, and sent to the nodes whose tasks use it; it is not secret.
 */

export interface ConfigSpec {
  /** Unique in the cluster. */
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** The file's bytes, base64 (as Docker's API carries them). Fixed once created. */
  readonly data: string;
}

/** Where a task finds a config: a file, at `name`, owned by uid:gid with `mode`. */
export interface ConfigFileTarget {
  /** The file's path; a relative one is taken from the root ("/"). */
  readonly name: string;
  readonly uid: string;
  readonly gid: string;
  /** Permission bits, e.g. 0o444. */
  readonly mode: number;
}

/** A config a task spec uses, by id; the name is what the user called it (Docker keeps both). */
export interface ConfigReference {
  readonly configId: string;
  readonly configName: string;
  readonly file: ConfigFileTarget;
}

/**
 * The most a config's data may hold, decoded: less than swarmkit's MaxConfigSize (1000 KiB),
 * as it checks. In base64 on the log, it fits the topic's 16 MiB messages with room to spare.
 */
export const MAX_CONFIG_BYTES = 1000 * 1024 - 1;

/** Docker's rule for config (and secret) names. */
export const CONFIG_NAME_PATTERN = /^[a-zA-Z0-9]+(?:[a-zA-Z0-9-_.]*[a-zA-Z0-9])?$/;
export const MAX_CONFIG_NAME_LENGTH = 64;

/** The largest file mode a config's target may have: permission bits, with setuid, setgid and sticky. */
export const MAX_FILE_MODE = 0o7777;

/** Docker's default file mode for a config: read-only for all. */
export const DEFAULT_CONFIG_MODE = 0o444;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with its padding, as Go's encoding/json writes []byte (a config's data on Docker's API). */
export const isBase64 = (text: string): boolean => BASE64.test(text);

/** The bytes a well-formed base64 text decodes to, without decoding it. */
export const base64DecodedLength = (text: string): number => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
