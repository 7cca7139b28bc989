import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in, within each group of tests/vitest.config.ts. The longest files start
 * first, so no long one starts last while the other workers idle: the fuzzing and the route sweep,
 * then the browser files, then the rest of the integration files, then the unit files. The CDK
 * files come last: they wait for the run's synthesis of the stack (tests/support/synth.ts), which
 * runs beside the first files, and would hold a worker idle meanwhile. Within each kind, vitest's
 * own order: slowest first when it timed them before, else largest first.
 */
const FIRST = ['security/fuzz.test.ts', 'security/sweep.test.ts'];

function kind(spec: TestSpecification): number {
  const path = spec.moduleId.split('\\').join('/');
  if (FIRST.some((file) => path.endsWith(`/tests/${file}`))) return 0;
  if (path.includes('/tests/e2e/')) return 1;
  if (path.includes('/tests/integration/') || path.includes('/tests/security/')) return 2;
  if (path.includes('/tests/unit/')) return 3;
  return 4;
}

export default class RunOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, i) => [spec, i]));
    return [...sorted].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || kind(a) - kind(b) || position.get(a)! - position.get(b)!,
    );
  }
}
