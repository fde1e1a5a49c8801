import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * A vitest sequencer that starts the files named in `slowest` first, in that order, and the
 * others after them as vitest orders them. With several files at a time, a long file started
 * last holds up the end of the run; vitest orders by the durations it cached on earlier runs,
 * which a fresh clone does not have.
 */
export function slowestFirst(slowest: string[]): typeof BaseSequencer {
  const rank = (file: TestSpecification) => {
    const index = slowest.findIndex((name) => file.moduleId.endsWith(`/${name}`));
    return index === -1 ? slowest.length : index;
  };
  return class SlowestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      // Array#sort is stable: the others keep vitest's order.
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}
