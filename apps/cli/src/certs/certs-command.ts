/**
 * `shoal certs`: the cluster CA and the certificates it issues for the API's TLS.
 *   shoal certs ca init --out DIR                                 a new CA (ca.pem, ca-key.pem)
 *   shoal certs issue --role auditor --cn alice --ca DIR --out DIR   a client certificate (DOCKER_CERT_PATH)
 *   shoal certs server --host 127.0.0.1 --ca DIR --out DIR        the API's server certificate
 * Keys are written 0600 and never printed.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { CLIENT_ROLES, initCa, issueClient, issueServer } from '@shoal/runtime';
import type { Issued } from '@shoal/runtime';

const days = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number of days, at least 1, e.g. --days 90');
  return Number(value);
};

const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',')];

const describe = (what: string, issued: Issued): string =>
  [
    `${what} ${issued.certificate.subject.replace(/\n/g, ', ')}`,
    `  certificate  ${issued.certPath}`,
    `  key          ${issued.keyPath} (0600)`,
    `  CA           ${issued.caPath}`,
    `  valid        ${issued.certificate.validFrom} → ${issued.certificate.validTo}`,
  ].join('\n');

export const certsCommand = (): Command => {
  const certs = new Command('certs').description("the cluster CA, and certificates for the API's TLS (Docker's file names: ca.pem, cert.pem, key.pem)");
  const ca = certs.command('ca').description('the cluster CA');
  ca.command('init')
    .description('make a new CA: ca.pem and ca-key.pem (0600) in --out')
    .requiredOption('--out <dir>', 'where to write the CA (refused if it holds one already)')
    .option('--cn <name>', 'the CA\'s common name', 'Shoal cluster CA')
    .option('--days <n>', 'how long the CA is valid (default 3650)', days)
    .action((options: { out: string; cn: string; days?: number }) => {
      const made = initCa({ out: options.out, commonName: options.cn, ...(options.days ? { days: options.days } : {}) });
      process.stdout.write(`CA ${made.certificate.subject.replace(/\n/g, ', ')}\n  certificate  ${made.certPath}\n  key          ${made.keyPath} (0600: keep it offline)\n  valid        ${made.certificate.validFrom} → ${made.certificate.validTo}\n`);
    });
  certs
    .command('issue')
    .description('issue a client certificate with a role, for `docker --tlsverify` (DOCKER_CERT_PATH=--out)')
    .addOption(new Option('--role <role>', 'what the holder may do, as a bearer token\'s role').choices(CLIENT_ROLES).makeOptionMandatory())
    .requiredOption('--cn <name>', 'who the certificate is for, e.g. alice')
    .requiredOption('--ca <dir>', 'the CA directory (`shoal certs ca init --out DIR`)')
    .requiredOption('--out <dir>', 'where to write ca.pem, cert.pem and key.pem')
    .option('--days <n>', 'how long it is valid (default 365)', days)
    .action((options: { role: string; cn: string; ca: string; out: string; days?: number }) => {
      const issued = issueClient({ ca: options.ca, out: options.out, role: options.role, commonName: options.cn, ...(options.days ? { days: options.days } : {}) });
      process.stdout.write(`${describe('client', issued)}\n  use          DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=${options.out} DOCKER_HOST=tcp://HOST:PORT docker …\n`);
    });
  certs
    .command('server')
    .description("issue the API's server certificate: server-cert.pem and server-key.pem in --out")
    .requiredOption('--host <name>', 'a DNS name or IP address clients dial (repeat, or separate with commas)', collect)
    .requiredOption('--ca <dir>', 'the CA directory')
    .requiredOption('--out <dir>', 'where to write ca.pem, server-cert.pem and server-key.pem')
    .option('--days <n>', 'how long it is valid (default 365)', days)
    .action((options: { host: string[]; ca: string; out: string; days?: number }) => {
      const issued = issueServer({ ca: options.ca, out: options.out, hosts: options.host, ...(options.days ? { days: options.days } : {}) });
      process.stdout.write(
        `${describe('server', issued)}\n  use          shoal run api --host 0.0.0.0 --tlsverify --tlscacert ${issued.caPath} --tlscert ${issued.certPath} --tlskey ${issued.keyPath}\n`,
      );
    });
  return certs;
};
