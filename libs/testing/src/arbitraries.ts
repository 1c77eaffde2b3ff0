/**
 * fast-check arbitraries for the edges where placement and restart rules flip: tasks that
 * publish several host ports (one taken is enough to refuse a node), platforms that name
 * only an OS or only an architecture (the other is a wildcard), node platforms by both
 * names of an architecture, and times exactly on a boundary or one millisecond either side.
 */
import fc from 'fast-check';
import type { Platform, PortConfig } from '@shoal/contracts';

/** The host ports tasks draw from: few, so that tasks share some of them often. */
const HOST_PORTS: readonly PortConfig[] = [
  { protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' },
  { protocol: 'tcp', targetPort: 443, publishedPort: 8443, publishMode: 'host' },
  { protocol: 'udp', targetPort: 53, publishedPort: 8080, publishMode: 'host' },
  { protocol: 'tcp', targetPort: 9000, publishedPort: 9000, publishMode: 'host' },
];

/** A task's published ports: none, one, or several host ports (and sometimes an ingress port beside them). */
export const hostPortSets = (): fc.Arbitrary<PortConfig[]> =>
  fc
    .tuple(fc.subarray([...HOST_PORTS], { minLength: 0, maxLength: 3 }), fc.boolean())
    .map(([host, ingress]) => (ingress ? [...host, { protocol: 'tcp' as const, targetPort: 81, publishedPort: 30081, publishMode: 'ingress' as const }] : host));

/** A platform an image runs on: both fields, only an architecture (any OS), or only an OS (any architecture). */
export const imagePlatforms = (): fc.Arbitrary<Platform> =>
  fc.record({
    os: fc.constantFrom('', 'linux', 'windows'),
    architecture: fc.constantFrom('', 'amd64', 'x86_64', 'arm64', 'aarch64'),
  });

/** What a node reports: an OS and its architecture, under either of the names engines use. */
export const nodePlatforms = (): fc.Arbitrary<Platform> =>
  fc.record({ os: fc.constantFrom('linux', 'windows'), architecture: fc.constantFrom('x86_64', 'amd64', 'aarch64', 'arm64') });

/** `at`, or exactly one millisecond before or after it, or a random distance either side. */
export const aroundBoundary = (at: number, spread = 5_000): fc.Arbitrary<number> =>
  fc.oneof(fc.constantFrom(at - 1, at, at + 1), fc.integer({ min: at - spread, max: at + spread }));
