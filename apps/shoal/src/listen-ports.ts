/**
 * The all-in-one's TCP ports, checked before anything is written: a port the user chose
 * that is taken stops the start with the setting to change; a default that is taken
 * (2377 is Docker swarm's manager port, 8080 anyone's) gives way to any free port.
 */
import { createServer } from 'node:net';

export interface PortSetting {
  /** The environment variable that sets it. */
  readonly name: string;
  readonly port: number;
  /** Set by the user (the variable was given), not the default. */
  readonly chosen: boolean;
}

/** Whether 127.0.0.1:`port` can be listened on now (0 always can). */
export const portFree = (port: number, host = '127.0.0.1'): Promise<boolean> =>
  new Promise((resolve) => {
    if (port === 0) return resolve(true);
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });

/**
 * The port to listen on for `setting`: itself when free; 0 (any free port) when it is the
 * default and taken, with a line for `say`; an Error that names the setting when the user
 * chose it and it is taken.
 */
export const portToListenOn = async (setting: PortSetting, say: (line: string) => void): Promise<number> => {
  if (await portFree(setting.port)) return setting.port;
  if (setting.chosen) {
    throw new Error(`${setting.name}=${setting.port}: 127.0.0.1:${setting.port} is already in use; set ${setting.name} to a free port, or to 0 for any free one`);
  }
  say(`127.0.0.1:${setting.port} is already in use${setting.port === 2377 ? ' (a Docker swarm manager listens there)' : ''}: listening on a free port instead (${setting.name} to choose one)`);
  return 0;
};
