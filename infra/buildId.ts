import { execFileSync } from 'node:child_process';

/**
 * The build id shown in system settings (`BUILD_ID`): the short commit the stack or the local host
 * was built from, or `dev` outside a Git checkout (or where `git` is missing). A `BUILD_ID` in the
 * environment (a CI pipeline's own id) takes precedence.
 */
export function buildId(cwd: string): string {
  if (process.env.BUILD_ID) return process.env.BUILD_ID;
  try {
    const run = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = run(['rev-parse', '--short', 'HEAD']);
    return commit || 'dev';
  } catch {
    return 'dev';
  }
}
