/**
 * A locked API (autolock on, restarted, not yet unlocked) serves nothing of the swarm, as
 * a locked Docker manager: every route answers Docker's 503 "Swarm is encrypted and needs
 * to be unlocked…", but those that say what the node is and unlock it (`/_ping`,
 * `/version`, `/info`, `POST /swarm/unlock`), those a locked Docker manager answers in words
 * of their own (`POST /swarm/init` and `/swarm/join`: already part of a swarm;
 * `/swarm/leave`: locked, unlock first or force), and the process's own health and metrics.
 */
import { HttpException, Inject, Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SWARM_LOCKED_MESSAGE } from '@shoal/runtime';
import { ApiSecretVault } from './api-secret-vault';

const SERVED_WHILE_LOCKED = new Set(['/_ping', '/version', '/info', '/swarm/unlock', '/swarm/init', '/swarm/join', '/swarm/leave', '/healthz', '/readyz', '/metrics']);

@Injectable()
export class SwarmLockGuard implements CanActivate {
  constructor(@Inject(ApiSecretVault) private readonly secrets: ApiSecretVault) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !this.secrets.isLocked) return true;
    const path = (context.switchToHttp().getRequest<IncomingMessage>().url ?? '/').split('?')[0]!;
    if (SERVED_WHILE_LOCKED.has(path)) return true;
    throw new HttpException(SWARM_LOCKED_MESSAGE, 503);
  }
}
