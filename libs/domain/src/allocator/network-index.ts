/** Networks by id and by name (a task or service names its networks either way), and the ingress network. */
import type { ClusterState, Network } from '../state';

export class NetworkIndex {
  private readonly byName = new Map<string, Network>();
  readonly ingress?: Network;

  constructor(private readonly state: ClusterState) {
    let ingress: Network | undefined;
    for (const network of state.networks.values()) {
      this.byName.set(network.spec.name, network);
      if (network.spec.ingress) ingress = network;
    }
    if (ingress) this.ingress = ingress;
  }

  /** The network a target ("backend" or its id) names, the id winning over a name. */
  resolve(target: string): Network | undefined {
    return this.state.networks.get(target) ?? this.byName.get(target);
  }
}
