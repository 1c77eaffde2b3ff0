/**
 * The cluster's root CA as the API serves it: SHOAL_CA_DIR's until a rotation's root takes
 * over on the log (root-rotation.ts). It names the root in Docker's TLSInfo (swarm inspect,
 * info, `docker swarm ca`), gives join tokens their digest, starts rotations (`docker swarm
 * ca --rotate`), and signs the API's own manager certificate for the dispatchers' Logs
 * service. A rotated root's key is opened with the API's cluster keyring.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Cluster } from '@shoal/domain';
import { ClusterRootCa, trustInfo } from '@shoal/runtime';
import type { RootCaState } from '@shoal/runtime';
import { NO_TLS_INFO } from '@shoal/docker-api';
import type { DockerClusterInfo } from '@shoal/docker-api';
import type { ApiConfig } from '../api.config';
import { API_CONFIG } from '../api.tokens';
import { ApiSecretVault } from '../secrets/api-secret-vault';

@Injectable()
export class ApiRootCa {
  private readonly roots?: ClusterRootCa;

  constructor(@Inject(API_CONFIG) config: ApiConfig, @Inject(ApiSecretVault) secrets: ApiSecretVault) {
    this.roots = config.ca ? new ClusterRootCa(config.ca, (sealed, digest) => secrets.keyring.openRootCaKey(sealed, digest)) : undefined;
  }

  /** The root CA at the cluster's point of the log; undefined when the cluster has none (no SHOAL_CA_DIR). */
  at(cluster: Cluster | undefined): RootCaState | undefined {
    return this.roots?.at(cluster);
  }

  /**
   * Docker's TLSInfo of the cluster: the root it has, and the issuer it names — the root's
   * own, as SwarmKit's cluster object shows it until a rotation ends.
   */
  tlsInfo(cluster: Cluster | undefined): DockerClusterInfo['TLSInfo'] {
    const root = this.at(cluster);
    if (!root) return NO_TLS_INFO;
    const { trustRoot, issuerSubject, issuerPublicKey } = trustInfo(root.root);
    return { TrustRoot: trustRoot, CertIssuerSubject: issuerSubject, CertIssuerPublicKey: issuerPublicKey };
  }
}
