import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { AFTER, ALONE } from './vitest.config.ts';

/**
 * `npm test`: lint, typecheck and the console build side by side (each is mostly one core's
 * work), then every vitest project, each phase timed. At the end it prints where the time went:
 * the seconds of each phase (and of the install, when `.ci/run` passes them in `CI_INSTALL_SECONDS`),
 * of each vitest project from its first file's start to its last file's end, and the ten slowest
 * test files, so a slow test is seen in every run.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..');
const TESTS = import.meta.dirname;

interface Phase {
  name: string;
  seconds: number;
  ok: boolean;
  note?: string;
}

/** Runs a command; its output is printed when it ends, whole, so phases side by side do not interleave their lines. */
function run(name: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; stream?: boolean } = {}): Promise<Phase> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: options.stream ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (!options.stream) process.stdout.write(`\n── ${name} (${seconds.toFixed(0)} s, ${code === 0 ? 'passed' : 'failed'}) ──\n${output}`);
      done({ name, seconds, ok: code === 0 });
    });
  });
}

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}

/** The vitest project a test file belongs to (tests/vitest.config.ts). */
function projectOf(file: string): string {
  const path = relative(TESTS, file).split('\\').join('/');
  const top = path.split('/')[0]!;
  const project = top === 'security' ? 'integration' : top;
  return path in AFTER ? `${project}-after` : path in ALONE ? `${project}-alone` : project;
}

const phases: Phase[] = [];
const install = Number(process.env.CI_INSTALL_SECONDS);
if (Number.isFinite(install) && install > 0) phases.push({ name: 'install (npm ci)', seconds: install, ok: true });

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const staticStarted = performance.now();
const checks = await Promise.all([run('lint', npm, ['run', 'lint']), run('typecheck', npm, ['run', 'typecheck']), run('build', npm, ['run', 'build'])]);
phases.push(...checks, { name: 'lint, typecheck and build side by side', seconds: (performance.now() - staticStarted) / 1000, ok: checks.every((c) => c.ok) });

let files: FileResult[] = [];
if (checks.every((c) => c.ok)) {
  // The whole report stays in tests/.tmp/ for a closer look at a run.
  const report = join(TESTS, '.tmp', 'vitest-report.json');
  rmSync(report, { force: true });
  const vitest = await run(
    'vitest',
    process.execPath,
    [resolve(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    {
      cwd: TESTS,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stream: true,
    },
  );
  if (existsSync(report)) files = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: FileResult[] }).testResults;
  const projects = new Map<string, FileResult[]>();
  for (const file of files) {
    const project = projectOf(file.name);
    projects.set(project, [...(projects.get(project) ?? []), file]);
  }
  for (const [name, list] of [...projects.entries()].sort()) {
    const span = (Math.max(...list.map((f) => f.endTime)) - Math.min(...list.map((f) => f.startTime))) / 1000;
    const busy = list.reduce((sum, f) => sum + (f.endTime - f.startTime), 0) / 1000;
    phases.push({
      name: `vitest ${name}`,
      seconds: span,
      ok: list.every((f) => f.status === 'passed'),
      note: `${list.length} files, ${busy.toFixed(0)} s of files`,
    });
  }
  phases.push(vitest);
}

const line = (phase: Phase) =>
  `${phase.name.padEnd(42)}${phase.seconds.toFixed(0).padStart(6)} s  ${phase.ok ? 'passed' : 'FAILED'}${phase.note ? `  (${phase.note})` : ''}`;
process.stdout.write(`\nWhere the time went\n${phases.map(line).join('\n')}\n`);
if (files.length) {
  const slowest = [...files].sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime)).slice(0, 10);
  process.stdout.write(
    `\nThe ten slowest test files\n${slowest.map((f) => `${((f.endTime - f.startTime) / 1000).toFixed(1).padStart(7)} s  ${relative(TESTS, f.name)}`).join('\n')}\n`,
  );
}
process.exitCode = phases.every((p) => p.ok) ? 0 : 1;
