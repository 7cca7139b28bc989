import { parseArgs } from 'node:util';
import { startFleet } from './fleet.ts';
import { startIntercomFleet } from './intercomFleet.ts';

/**
 * `npm run devices -- --count 200 --user-code ABCD2345 [--api http://127.0.0.1:3000] [--prefix SIM2] [--state-dir .data/devices]`:
 * starts simulated face terminals against any Pass Cloud endpoint and keeps them running. Each
 * keeps its binding in the state folder, so running it again connects the same devices; without
 * it, a second run would bind again and each device would wait as a replacement to approve.
 * `--door-stations N --monitors N` start intercoms as well (`<prefix>-D001…`, `<prefix>-M001…`);
 * `--count 0` starts intercoms only. They bind, heartbeat and obey commands; calls need the
 * numbers the console gives them, so the CLI places none.
 */
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '3' },
    'door-stations': { type: 'string', default: '0' },
    monitors: { type: 'string', default: '0' },
    'user-code': { type: 'string' },
    api: { type: 'string', default: process.env.PASSCLOUD_API ?? 'http://127.0.0.1:3000' },
    prefix: { type: 'string', default: 'SIM' },
    broker: { type: 'string' },
    heartbeat: { type: 'string', default: '30000' },
    'state-dir': { type: 'string', default: '.data/devices' },
  },
});

const userCode = values['user-code'];
const count = Number(values.count);
const doorStations = Number(values['door-stations']);
const monitors = Number(values.monitors);
const counts = [count, doorStations, monitors];
if (!userCode || !counts.every((n) => Number.isInteger(n) && n >= 0) || count + doorStations + monitors < 1) {
  console.error(
    'usage: npm run devices -- --count N --user-code CODE [--door-stations N] [--monitors N] [--api URL] [--prefix SIM] [--broker mqtt://host:port]',
  );
  process.exit(2);
}
const started = Date.now();
const common = {
  apiUrl: values.api,
  userCode,
  prefix: values.prefix,
  heartbeatMs: Number(values.heartbeat),
  stateDir: values['state-dir'],
  ...(values.broker ? { brokerUrl: values.broker } : {}),
};
const fleet = count > 0 ? await startFleet({ ...common, count }) : undefined;
const intercoms =
  doorStations + monitors > 0
    ? await startIntercomFleet({ ...common, doorStations, monitors }).catch(async (error: unknown) => {
        await fleet?.stop();
        throw error;
      })
    : undefined;
const agents = [...(fleet?.agents ?? []), ...(intercoms?.agents ?? [])];
const waiting = agents.filter((a) => a.awaitingApproval).length;
const stopped = agents.filter((a) => a.stoppedFor).length;
const kinds = [
  ...(count ? [`face terminals ${values.prefix}-0001…`] : []),
  ...(doorStations ? [`door stations ${values.prefix}-D001…`] : []),
  ...(monitors ? [`indoor monitors ${values.prefix}-M001…`] : []),
];
console.log(
  `${agents.length - waiting - stopped} simulated devices (${kinds.join(', ')}) online against ${values.api} in ${((Date.now() - started) / 1000).toFixed(1)} s` +
    (waiting ? `; ${waiting} wait for an administrator to approve them` : '') +
    (stopped ? `; ${stopped} stopped (deleted or replaced in the console)` : '') +
    '; Ctrl-C to stop.',
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void Promise.allSettled([fleet?.stop(), intercoms?.stop()]).then(() => process.exit(0)));
}
