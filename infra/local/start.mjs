// `npm start`: installs what is missing, builds the console when it is out of date, then runs
// the local stack. Plain JavaScript, so it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
if (java.status !== 0) {
  console.error('Java 17 or newer is needed for DynamoDB Local. On Debian or Ubuntu: apt-get install -y openjdk-17-jre-headless');
  process.exit(1);
}

const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || mtime(installed) < mtime(lock)) {
  console.log('Installing dependencies (npm ci)...');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

const dist = join(root, 'web', 'dist', 'index.html');
const webSources = [join(root, 'web', 'src'), join(root, 'web', 'index.html'), join(root, 'functions', 'contract')];
const sourceTime = Math.max(...webSources.map((p) => (existsSync(p) ? (statSync(p).isDirectory() ? newest(p) : mtime(p)) : 0)));
if (!existsSync(dist) || mtime(dist) < sourceTime) {
  console.log('Building the console...');
  run('npm', ['run', 'build', '--silent']);
}

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...process.env };
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'infra', 'local', 'main.ts')], { cwd: root, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
