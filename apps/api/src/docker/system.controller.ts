/** Docker's system endpoints: /_ping (version negotiation), /version and /info. */
import { ApiRootCa } from './api-root-ca';
import { Controller, Get, Head, Header, Inject, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import { TaskState } from '@shoal/contracts';
import { SWARM_LOCKED_MESSAGE } from '@shoal/runtime';
import type { LiveView } from '@shoal/runtime';
import { API_CONFIG, API_VIEW } from '../api.tokens';
import type { ApiConfig } from '../api.config';
import { API_VERSION, MIN_API_VERSION } from '../http/api-version';
import { controlPlaneNodeId, joinHost } from './control-plane-node';
import { toDockerClusterInfo } from '@shoal/docker-api';
import { ApiSecretVault } from '../secrets/api-secret-vault';

export const SHOAL_VERSION = '0.1.0';

@ApiTags('docker: system')
@Controller()
export class SystemController {
  constructor(
    @Inject(API_VIEW) private readonly view: LiveView,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(ApiSecretVault) private readonly secrets: ApiSecretVault,
    @Inject(ApiRootCa) private readonly roots: ApiRootCa,
  ) {}

  @Get('_ping')
  @ApiOperation({ summary: 'Ping; its headers carry the API version and swarm status' })
  ping(@Res() res: ServerResponse): void {
    this.pingHeaders(res);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('OK');
  }

  @Head('_ping')
  @ApiExcludeEndpoint()
  pingHead(@Res() res: ServerResponse): void {
    this.pingHeaders(res);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end();
  }

  @Get('version')
  @Header('Cache-Control', 'no-cache')
  @ApiOperation({ summary: 'Version of the API and of Shoal' })
  version(): Record<string, unknown> {
    return {
      Platform: { Name: 'Shoal' },
      Components: [
        {
          Name: 'Engine',
          Version: SHOAL_VERSION,
          Details: { ApiVersion: API_VERSION, MinAPIVersion: MIN_API_VERSION, Os: 'linux', Arch: 'amd64' },
        },
      ],
      Version: SHOAL_VERSION,
      ApiVersion: API_VERSION,
      MinAPIVersion: MIN_API_VERSION,
      GitCommit: 'shoal',
      GoVersion: `node${process.versions.node}`,
      Os: 'linux',
      Arch: 'amd64',
      KernelVersion: '',
      BuildTime: '',
    };
  }

  @Get('info')
  @ApiOperation({ summary: 'System information, with its Swarm section' })
  info(): Record<string, unknown> {
    const state = this.view.state;
    const cluster = state.cluster;
    const nodes = [...state.nodes.values()];
    const running = [...state.tasks.values()].filter((task) => task.status.state === TaskState.RUNNING).length;
    return {
      ID: cluster?.id ?? '',
      Name: 'shoal',
      ServerVersion: SHOAL_VERSION,
      OperatingSystem: 'Shoal control plane',
      OSType: 'linux',
      Architecture: 'x86_64',
      KernelVersion: '',
      Containers: running,
      ContainersRunning: running,
      ContainersPaused: 0,
      ContainersStopped: 0,
      Images: 0,
      Driver: 'none',
      DriverStatus: [],
      Plugins: { Volume: [], Network: ['overlay'], Authorization: null, Log: [] },
      MemTotal: nodes.reduce((sum, node) => sum + (node.description.resources.memoryBytes ?? 0), 0),
      NCPU: Math.round(nodes.reduce((sum, node) => sum + (node.description.resources.nanoCpus ?? 0), 0) / 1e9),
      Labels: [],
      ExperimentalBuild: false,
      LoggingDriver: 'none',
      CgroupDriver: 'none',
      CgroupVersion: '2',
      DockerRootDir: this.config.dataDir,
      IndexServerAddress: 'https://index.docker.io/v1/',
      RegistryConfig: { IndexConfigs: {}, InsecureRegistryCIDRs: [], Mirrors: [] },
      SecurityOptions: [],
      Warnings: [],
      Swarm: this.secrets.isLocked
        ? // Docker's locked manager: what `docker swarm unlock` checks for; its address, and why it serves nothing.
          { NodeID: '', NodeAddr: joinHost(this.config.joinAddr), LocalNodeState: 'locked', ControlAvailable: false, Error: SWARM_LOCKED_MESSAGE, RemoteManagers: null }
        : cluster
        ? {
            NodeID: controlPlaneNodeId(cluster.id),
            NodeAddr: joinHost(this.config.joinAddr),
            LocalNodeState: 'active',
            ControlAvailable: true,
            Error: '',
            RemoteManagers: [{ NodeID: controlPlaneNodeId(cluster.id), Addr: this.config.joinAddr }],
            // The control plane is a node of the list too (/nodes), as a Docker manager is.
            Nodes: nodes.length + 1,
            Managers: nodes.filter((node) => node.spec.role === 'manager').length + 1,
            Cluster: toDockerClusterInfo(cluster, this.roots.tlsInfo(cluster)),
          }
        : { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
    };
  }

  private pingHeaders(res: ServerResponse): void {
    res.setHeader('API-Version', API_VERSION);
    res.setHeader('OSType', 'linux');
    res.setHeader('Docker-Experimental', 'false');
    res.setHeader('Cache-Control', 'no-cache, no-store, must-revalidate');
    res.setHeader('Pragma', 'no-cache');
    res.setHeader('Swarm', this.secrets.isLocked ? 'locked' : this.view.state.cluster ? 'active/manager' : 'inactive');
  }
}
