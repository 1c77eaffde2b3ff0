/**
 * The ContainerSpec fields beyond image, command and environment (groups, stop signal,
 * healthcheck, init, TTY, read-only root, capabilities, sysctls, ulimits, DNS, hosts, mounts) and a
 * TaskSpec's LogDriver: Docker's JSON ↔ Shoal's contracts, both ways, so that what a service
 * is created with is what inspect returns and what an executor reads. A field of the wrong
 * type is refused naming it; a field Shoal cannot honour anywhere (Privileges) is refused.
 */
import { MOUNT_TYPES } from '@shoal/contracts';
import type { BindPropagation, ContainerSpec, DnsConfig, HealthConfig, LogDriver, Mount, MountType, Ulimit } from '@shoal/contracts';
import { msToNs, nsToMs } from './durations';
import { SpecError } from './spec-error';

const CONTAINER = 'TaskTemplate.ContainerSpec';

type Extras = Pick<
  ContainerSpec,
  'groups' | 'stopSignal' | 'healthcheck' | 'init' | 'tty' | 'openStdin' | 'readOnly' | 'capabilityAdd' | 'capabilityDrop' | 'sysctls' | 'ulimits' | 'dnsConfig' | 'hosts' | 'mounts'
>;

const strings = (value: unknown, field: string): string[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new SpecError(field, 'expected an array of strings');
  return value.length > 0 ? [...(value as string[])] : undefined;
};

const flag = (value: unknown, field: string): true | undefined => {
  if (value === undefined || value === false) return undefined;
  if (value !== true) throw new SpecError(field, 'expected true or false');
  return true;
};

const text = (value: unknown, field: string): string | undefined => {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new SpecError(field, 'expected a string');
  return value;
};

const count = (value: unknown, field: string): number | undefined => {
  if (value === undefined || value === 0) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new SpecError(field, `${String(value)} is not a non-negative integer`);
  return value;
};

const stringMap = (value: unknown, field: string): Record<string, string> | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SpecError(field, 'expected an object of strings');
  for (const [key, item] of Object.entries(value)) if (typeof item !== 'string') throw new SpecError(`${field}.${key}`, 'expected a string');
  return Object.keys(value).length > 0 ? { ...(value as Record<string, string>) } : undefined;
};

const record = (value: unknown, field: string): Record<string, unknown> | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SpecError(field, 'expected an object');
  return value as Record<string, unknown>;
};

const durationMs = (value: unknown, field: string): number | undefined => {
  const ns = count(value, field);
  return ns === undefined ? undefined : nsToMs(ns, field);
};

/** Drops the keys whose value is undefined; undefined when none is left. */
const compact = <T extends object>(value: T): T | undefined => {
  const kept = Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
  return Object.keys(kept).length > 0 ? kept : undefined;
};

const fromDockerHealthcheck = (value: unknown): HealthConfig | undefined => {
  const health = record(value, `${CONTAINER}.Healthcheck`);
  if (!health) return undefined;
  const field = `${CONTAINER}.Healthcheck`;
  return compact<HealthConfig>({
    test: strings(health.Test, `${field}.Test`),
    intervalMs: durationMs(health.Interval, `${field}.Interval`),
    timeoutMs: durationMs(health.Timeout, `${field}.Timeout`),
    startPeriodMs: durationMs(health.StartPeriod, `${field}.StartPeriod`),
    retries: count(health.Retries, `${field}.Retries`),
  });
};

const fromDockerUlimits = (value: unknown): Ulimit[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new SpecError(`${CONTAINER}.Ulimits`, 'expected an array');
  const ulimits = value.map((item: unknown, index) => {
    const field = `${CONTAINER}.Ulimits[${index}]`;
    const limit = record(item, field) ?? {};
    const name = text(limit.Name, `${field}.Name`);
    if (!name) throw new SpecError(`${field}.Name`, 'a ulimit name is required');
    return { name, soft: count(limit.Soft, `${field}.Soft`) ?? 0, hard: count(limit.Hard, `${field}.Hard`) ?? 0 };
  });
  return ulimits.length > 0 ? ulimits : undefined;
};

const fromDockerDns = (value: unknown): DnsConfig | undefined => {
  const dns = record(value, `${CONTAINER}.DNSConfig`);
  if (!dns) return undefined;
  const field = `${CONTAINER}.DNSConfig`;
  return compact<DnsConfig>({
    nameservers: strings(dns.Nameservers, `${field}.Nameservers`),
    search: strings(dns.Search, `${field}.Search`),
    options: strings(dns.Options, `${field}.Options`),
  });
};

const PROPAGATIONS: readonly BindPropagation[] = ['private', 'rprivate', 'shared', 'rshared', 'slave', 'rslave'];

const fromDockerMount = (item: unknown, index: number): Mount => {
  const field = `${CONTAINER}.Mounts[${index}]`;
  const mount = record(item, field) ?? {};
  const type = text(mount.Type, `${field}.Type`) ?? 'volume';
  if (!MOUNT_TYPES.includes(type as MountType)) throw new SpecError(`${field}.Type`, `"${type}" is not one of ${MOUNT_TYPES.join(', ')}`);
  const target = text(mount.Target, `${field}.Target`);
  if (!target) throw new SpecError(`${field}.Target`, 'a mount target is required');
  const bind = record(mount.BindOptions, `${field}.BindOptions`);
  const volume = record(mount.VolumeOptions, `${field}.VolumeOptions`);
  const driver = volume ? record(volume.DriverConfig, `${field}.VolumeOptions.DriverConfig`) : undefined;
  const tmpfs = record(mount.TmpfsOptions, `${field}.TmpfsOptions`);
  const propagation = bind ? text(bind.Propagation, `${field}.BindOptions.Propagation`) : undefined;
  if (propagation !== undefined && !PROPAGATIONS.includes(propagation as BindPropagation)) {
    throw new SpecError(`${field}.BindOptions.Propagation`, `"${propagation}" is not one of ${PROPAGATIONS.join(', ')}`);
  }
  const mode = tmpfs ? count(tmpfs.Mode, `${field}.TmpfsOptions.Mode`) : undefined;
  return compact<Mount>({
    type: type as MountType,
    source: text(mount.Source, `${field}.Source`),
    target,
    readOnly: flag(mount.ReadOnly, `${field}.ReadOnly`),
    consistency: text(mount.Consistency, `${field}.Consistency`),
    bindOptions: bind
      ? compact({ propagation: propagation as BindPropagation | undefined, nonRecursive: flag(bind.NonRecursive, `${field}.BindOptions.NonRecursive`) })
      : undefined,
    volumeOptions: volume
      ? compact({
          noCopy: flag(volume.NoCopy, `${field}.VolumeOptions.NoCopy`),
          labels: stringMap(volume.Labels, `${field}.VolumeOptions.Labels`),
          driverConfig: driver
            ? compact({ name: text(driver.Name, `${field}.VolumeOptions.DriverConfig.Name`), options: stringMap(driver.Options, `${field}.VolumeOptions.DriverConfig.Options`) })
            : undefined,
        })
      : undefined,
    tmpfsOptions: tmpfs ? compact({ sizeBytes: count(tmpfs.SizeBytes, `${field}.TmpfsOptions.SizeBytes`), mode }) : undefined,
  })!;
};

const fromDockerMounts = (value: unknown): Mount[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new SpecError(`${CONTAINER}.Mounts`, 'expected an array');
  return value.length > 0 ? value.map(fromDockerMount) : undefined;
};

const toDockerMount = (mount: Mount): Record<string, unknown> =>
  compact<Record<string, unknown>>({
    Type: mount.type,
    Source: mount.source,
    Target: mount.target,
    ReadOnly: mount.readOnly,
    Consistency: mount.consistency,
    BindOptions: mount.bindOptions ? (compact({ Propagation: mount.bindOptions.propagation, NonRecursive: mount.bindOptions.nonRecursive }) ?? {}) : undefined,
    VolumeOptions: mount.volumeOptions
      ? (compact({
          NoCopy: mount.volumeOptions.noCopy,
          Labels: mount.volumeOptions.labels ? { ...mount.volumeOptions.labels } : undefined,
          DriverConfig: mount.volumeOptions.driverConfig
            ? (compact({ Name: mount.volumeOptions.driverConfig.name, Options: mount.volumeOptions.driverConfig.options ? { ...mount.volumeOptions.driverConfig.options } : undefined }) ?? {})
            : undefined,
        }) ?? {})
      : undefined,
    TmpfsOptions: mount.tmpfsOptions ? (compact({ SizeBytes: mount.tmpfsOptions.sizeBytes, Mode: mount.tmpfsOptions.mode }) ?? {}) : undefined,
  })!;

/** A settings object with something in it: the CLI sends Privileges with every field empty. */
const hasSetting = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.values(value).some((item) => item !== false && item !== '' && item !== null && (typeof item !== 'object' || hasSetting(item)));

/** The extra fields of Docker's ContainerSpec as Shoal's; refuses what Shoal cannot honour. */
export const fromDockerContainerExtras = (container: Readonly<Record<string, unknown>>): Extras => {
  if (hasSetting(container.Privileges)) {
    throw new SpecError(`${CONTAINER}.Privileges`, 'credential specs, SELinux and seccomp/AppArmor profiles are not supported by Shoal');
  }
  const isolation = text(container.Isolation, `${CONTAINER}.Isolation`);
  if (isolation !== undefined && isolation !== 'default') {
    throw new SpecError(`${CONTAINER}.Isolation`, `"${isolation}" is not supported by Shoal: its executors run Linux containers ("default")`);
  }
  return (
    compact<Extras>({
      groups: strings(container.Groups, `${CONTAINER}.Groups`),
      stopSignal: text(container.StopSignal, `${CONTAINER}.StopSignal`),
      healthcheck: fromDockerHealthcheck(container.Healthcheck),
      init: flag(container.Init, `${CONTAINER}.Init`),
      tty: flag(container.TTY, `${CONTAINER}.TTY`),
      openStdin: flag(container.OpenStdin, `${CONTAINER}.OpenStdin`),
      readOnly: flag(container.ReadOnly, `${CONTAINER}.ReadOnly`),
      capabilityAdd: strings(container.CapabilityAdd, `${CONTAINER}.CapabilityAdd`),
      capabilityDrop: strings(container.CapabilityDrop, `${CONTAINER}.CapabilityDrop`),
      sysctls: stringMap(container.Sysctls, `${CONTAINER}.Sysctls`),
      ulimits: fromDockerUlimits(container.Ulimits),
      dnsConfig: fromDockerDns(container.DNSConfig),
      hosts: strings(container.Hosts, `${CONTAINER}.Hosts`),
      mounts: fromDockerMounts(container.Mounts),
    }) ?? {}
  );
};

/** Shoal's extra container fields as Docker's ContainerSpec shows them (absent when unset, as Docker's omitempty). */
export const toDockerContainerExtras = (container: ContainerSpec): Record<string, unknown> => {
  const health = container.healthcheck;
  return (
    compact<Record<string, unknown>>({
      Groups: container.groups ? [...container.groups] : undefined,
      StopSignal: container.stopSignal,
      Healthcheck: health
        ? compact({
            Test: health.test ? [...health.test] : undefined,
            Interval: health.intervalMs !== undefined ? msToNs(health.intervalMs) : undefined,
            Timeout: health.timeoutMs !== undefined ? msToNs(health.timeoutMs) : undefined,
            StartPeriod: health.startPeriodMs !== undefined ? msToNs(health.startPeriodMs) : undefined,
            Retries: health.retries,
          }) ?? {}
        : undefined,
      Init: container.init,
      TTY: container.tty,
      OpenStdin: container.openStdin,
      ReadOnly: container.readOnly,
      CapabilityAdd: container.capabilityAdd ? [...container.capabilityAdd] : undefined,
      CapabilityDrop: container.capabilityDrop ? [...container.capabilityDrop] : undefined,
      Sysctls: container.sysctls ? { ...container.sysctls } : undefined,
      Ulimits: container.ulimits?.map((limit) => ({ Name: limit.name, Soft: limit.soft, Hard: limit.hard })),
      DNSConfig: container.dnsConfig
        ? compact({
            Nameservers: container.dnsConfig.nameservers ? [...container.dnsConfig.nameservers] : undefined,
            Search: container.dnsConfig.search ? [...container.dnsConfig.search] : undefined,
            Options: container.dnsConfig.options ? [...container.dnsConfig.options] : undefined,
          }) ?? {}
        : undefined,
      Hosts: container.hosts ? [...container.hosts] : undefined,
      Mounts: container.mounts?.map(toDockerMount),
    }) ?? {}
  );
};

/**
 * What a TaskSpec may ask that Shoal cannot honour anywhere, refused naming the field rather
 * than dropped: a plugin or network-attachment runtime.
 */
export const refuseUnsupportedTaskFields = (task: Readonly<Record<string, unknown>>): void => {
  const runtime = text(task.Runtime, 'TaskTemplate.Runtime');
  if (runtime !== undefined && runtime !== 'container') throw new SpecError('TaskTemplate.Runtime', `"${runtime}" is not supported by Shoal: its tasks are containers`);
  for (const field of ['PluginSpec', 'NetworkAttachmentSpec']) {
    if (hasSetting(task[field])) throw new SpecError(`TaskTemplate.${field}`, 'not supported by Shoal: its tasks are containers');
  }
};

/** A TaskSpec's LogDriver (Name, Options) as Shoal's. */
export const fromDockerLogDriver = (value: unknown): LogDriver | undefined => {
  const driver = record(value, 'TaskTemplate.LogDriver');
  if (!driver) return undefined;
  const name = text(driver.Name, 'TaskTemplate.LogDriver.Name');
  if (!name) throw new SpecError('TaskTemplate.LogDriver.Name', 'a log driver name is required');
  const options = stringMap(driver.Options, 'TaskTemplate.LogDriver.Options');
  return { name, ...(options ? { options } : {}) };
};

export const toDockerLogDriver = (driver: LogDriver): { Name: string; Options?: Record<string, string> } => ({
  Name: driver.name,
  ...(driver.options ? { Options: { ...driver.options } } : {}),
});
