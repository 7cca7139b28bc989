import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * Module load time of a bundled function: its `index.mjs` imported in a fresh Node process (as
 * a cold Lambda start does), timed inside that process from before the import to after it, so
 * Node's own start is not counted. The median of `runs` processes, run one after another.
 */
export async function loadMillis(file: string, runs = 5): Promise<number> {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write('@@' + (performance.now() - t));`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      // Only what a function has at start on AWS: its region; no endpoint, no credentials.
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    await new Promise<void>((done) => child.on('close', () => done()));
    const at = out.lastIndexOf('@@');
    if (at < 0) throw new Error(`${file} did not load: ${err.slice(-1000)}`);
    times.push(Number(out.slice(at + 2)));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
