/**
 * Whether the active dispatcher a standby would send agents to answers at all: a gRPC
 * channel to its address, watched. The log names the active one until another takes a
 * newer term, so for as long as a killed dispatcher's lease takes to expire a standby
 * would send agents to nobody: there and back, with a longer wait each time. A standby
 * that cannot reach the active one names itself instead, and the agents try it again
 * until it (or another) takes over.
 */
import { Channel, connectivityState, credentials } from '@grpc/grpc-js';

/** Reconnection of the probe's channel: a dispatcher that comes back is seen within seconds. */
const PROBE_OPTIONS = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 2_000 };

export class ActiveProbe {
  private address?: string;
  private channel?: Channel;

  /** Whether the dispatcher at `address` is known not to answer now: the probe's connection to it failed. Asking starts watching it. */
  unreachable(address: string): boolean {
    if (address !== this.address || !this.channel) {
      this.close();
      this.address = address;
      this.channel = new Channel(address, credentials.createInsecure(), PROBE_OPTIONS);
    }
    return this.channel.getConnectivityState(true) === connectivityState.TRANSIENT_FAILURE;
  }

  close(): void {
    this.channel?.close();
    this.channel = undefined;
    this.address = undefined;
  }
}
