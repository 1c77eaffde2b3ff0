// What the compose file's `init` service runs, in the Shoal image (/opt/shoal/swarm-init.js):
// `docker swarm init --dispatcher-heartbeat 5s` through the API's unix socket unless the
// cluster exists, then the worker join token written to a file for the agents.
//   usage: node swarm-init.js <API socket> <token file>
const http = require('node:http');
const { writeFileSync } = require('node:fs');

const [socketPath, tokenFile] = process.argv.slice(2);

const call = (method, path, body) =>
  new Promise((resolve, reject) => {
    const request = http.request({ socketPath, method, path, headers: { 'Content-Type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: text }));
    });
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });

const main = async () => {
  if (!socketPath || !tokenFile) throw new Error('usage: node swarm-init.js <API socket> <token file>');
  const info = JSON.parse((await call('GET', '/info')).body);
  if (info.Swarm?.LocalNodeState !== 'active') {
    const init = await call('POST', '/swarm/init', { ListenAddr: '0.0.0.0:2377', Spec: { Dispatcher: { HeartbeatPeriod: 5_000_000_000 } } });
    if (init.status !== 200) throw new Error(`swarm init answered ${init.status}: ${init.body}`);
    process.stdout.write('swarm initialised\n');
  }
  const swarm = await call('GET', '/swarm');
  if (swarm.status !== 200) throw new Error(`GET /swarm answered ${swarm.status}: ${swarm.body}`);
  writeFileSync(tokenFile, `${JSON.parse(swarm.body).JoinTokens.Worker}\n`, { mode: 0o600 });
  process.stdout.write(`worker join token written to ${tokenFile}\n`);
};

main().catch((error) => {
  process.stderr.write(`swarm-init: ${error.message}\n`);
  process.exitCode = 1;
});
