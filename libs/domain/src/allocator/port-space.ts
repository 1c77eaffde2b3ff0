/**
 * Published ports of the routing mesh (ingress mode): one port per protocol is held by at
 * most one service in the whole cluster. A port asked for is reserved if free; a port not
 * asked for is taken from the dynamic range 30000–32767, in order after the last one taken.
 * Host-mode ports are the scheduler's business (per node), not held here.
 */
import type { PortProtocol } from '@shoal/contracts';

export const DYNAMIC_PORT_START = 30000;
export const DYNAMIC_PORT_END = 32767;
export const MAX_PORT = 65535;

const key = (protocol: PortProtocol, port: number): string => `${protocol}/${port}`;

export class PortSpace {
  /** "tcp/8080" → the service holding it. */
  private readonly held = new Map<string, string>();
  private readonly cursors = new Map<PortProtocol, number>();

  holderOf(protocol: PortProtocol, port: number): string | undefined {
    return this.held.get(key(protocol, port));
  }

  /** Holds `port` for `service`; false when another service holds it or it is out of range. */
  claim(protocol: PortProtocol, port: number, service: string): boolean {
    if (!Number.isInteger(port) || port < 1 || port > MAX_PORT) return false;
    const current = this.held.get(key(protocol, port));
    if (current !== undefined) return current === service;
    this.held.set(key(protocol, port), service);
    return true;
  }

  /** A free port of the dynamic range, now held by `service`; undefined when none is left. */
  takeDynamic(protocol: PortProtocol, service: string): number | undefined {
    const span = DYNAMIC_PORT_END - DYNAMIC_PORT_START + 1;
    const start = this.cursors.get(protocol) ?? DYNAMIC_PORT_START;
    for (let i = 0; i < span; i++) {
      const port = DYNAMIC_PORT_START + ((start - DYNAMIC_PORT_START + i) % span);
      if (this.held.has(key(protocol, port))) continue;
      this.held.set(key(protocol, port), service);
      this.cursors.set(protocol, port + 1);
      return port;
    }
    return undefined;
  }

  release(protocol: PortProtocol, port: number, service: string): boolean {
    if (this.held.get(key(protocol, port)) !== service) return false;
    this.held.delete(key(protocol, port));
    return true;
  }
}
