/** Nodes that can no longer run tasks, as the orchestrator judges them, and why. */
import type { Node } from '../state';

/** A node that can no longer run tasks: gone, down, or drained. */
export const invalidNode = (node: Node | undefined): boolean =>
  node === undefined || node.status.state === 'down' || node.spec.availability === 'drain';

/** Why a node can no longer run tasks, for the task's reason. */
export const whyInvalid = (nodeId: string, node: Node | undefined): string =>
  node === undefined ? `node ${nodeId} was removed` : node.status.state === 'down' ? `node ${nodeId} is down` : `node ${nodeId} is drained`;
