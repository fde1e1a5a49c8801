import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { createRunFiles, type RunFiles } from "../files/run-files.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "../run/execute-skill.js";
import type { ExecutionResult } from "../run/types.js";
import { READ_FILE_MAX_BYTES } from "./read-file.js";

let dir: string;
let files: RunFiles;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrun-read-file-"));
  files = createRunFiles({ dir });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Runs `steps` with the run's files; the data, or the failure's message. */
async function run(steps: string, withFiles = true): Promise<ExecutionResult> {
  const definition = parseSkillDefinition(`id: s\nname: S\nsteps:\n${steps}`, "s.yaml");
  return executeSkill({
    definition,
    inputs: {},
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: () => undefined,
    network: LOCAL_TEST_NETWORK,
    ...(withFiles ? { files } : {}),
  });
}

const dataOf = (result: ExecutionResult) => (result.outcome === "finished" ? result.data : result);
const failureOf = (result: ExecutionResult) =>
  result.outcome === "failed" ? result.error.message : `not failed: ${JSON.stringify(result)}`;

describe("read_file", () => {
  it("reads CSV with a header row into objects: BOM, CRLF, quoted commas, quotes and line breaks", async () => {
    await files.write(
      "people.csv",
      Buffer.from(
        '\ufeffname,age,__proto__\r\n"Doe, Jane",41,x\r\n"Say ""hi""","7","a\r\nb"\r\n\r\n',
      ),
    );
    const result = await run(
      '  - id: people\n    read_file: { file: people.csv, as: csv, save_as: people }\n  - set: { first: "{{ steps.people[0].name }}" }\n',
    );
    expect(dataOf(result)).toEqual({
      people: [
        { name: "Doe, Jane", age: "41", ["__proto__"]: "x" },
        { name: 'Say "hi"', age: "7", ["__proto__"]: "a\r\nb" },
      ],
      first: "Doe, Jane",
    });
    // A header named like a prototype is an own key, not a prototype.
    const people = (dataOf(result) as { people: object[] }).people;
    expect(Object.getPrototypeOf(people[0])).toBe(Object.prototype);
    expect(Object.keys(people[0] ?? {})).toEqual(["name", "age", "__proto__"]);
  });

  it("reads JSON, text and lines, by a run file's name or a file object", async () => {
    await files.write("r.json", Buffer.from('\ufeff{"total": 3, "ok": true}'));
    await files.write("notes.txt", Buffer.from("one\r\ntwo\nthree\n"));
    const result = await run(`
  - read_file: { file: r.json, as: json, save_as: report }
  - read_file: { file: { file: notes.txt, name: "Notes.txt" }, as: text, save_as: text }
  - read_file: { file: notes.txt, as: lines, save_as: vars.lines }
  - set: { lines: "{{ vars.lines }}" }
`);
    expect(dataOf(result)).toEqual({
      report: { total: 3, ok: true },
      text: "one\r\ntwo\nthree\n",
      lines: ["one", "two", "three"],
    });
  });

  it("fails clearly on a file that is not what as says, or not UTF-8, or not of this run", async () => {
    await files.write("bad.json", Buffer.from("{nope"));
    await files.write("ragged.csv", Buffer.from("a,b\n1,2\n3\n"));
    await files.write("twice.csv", Buffer.from("a,a\n1,2\n"));
    await files.write("blank.csv", Buffer.from("a,,c\n1,2,3\n"));
    await files.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await files.write("open.csv", Buffer.from('a,b\n"1,2\n'));
    expect(failureOf(await run("  - read_file: { file: bad.json, as: json }\n"))).toMatch(
      /^read_file bad\.json as json: not JSON: /,
    );
    expect(failureOf(await run("  - read_file: { file: ragged.csv, as: csv }\n"))).toMatch(
      /^read_file ragged\.csv as csv: not valid CSV: .*line 3/,
    );
    expect(failureOf(await run("  - read_file: { file: twice.csv, as: csv }\n"))).toBe(
      'read_file twice.csv as csv: the header row names the column "a" twice',
    );
    expect(failureOf(await run("  - read_file: { file: blank.csv, as: csv }\n"))).toBe(
      "read_file blank.csv as csv: the header row's column 2 has no name",
    );
    expect(failureOf(await run("  - read_file: { file: latin1.txt, as: text }\n"))).toBe(
      "read_file latin1.txt as text: not UTF-8 text",
    );
    expect(failureOf(await run("  - read_file: { file: open.csv, as: csv }\n"))).toMatch(
      /^read_file open\.csv as csv: not valid CSV: /,
    );
    expect(failureOf(await run("  - read_file: { file: missing.csv, as: csv }\n"))).toBe(
      'no run file named "missing.csv"; this run has: bad.json, ragged.csv, twice.csv, blank.csv, latin1.txt, open.csv',
    );
    expect(failureOf(await run('  - read_file: { file: "{{ 42 }}", as: csv }\n'))).toBe(
      `read_file's file must be a run file's name or an object with a "file" key (such as a download's result), not 42`,
    );
    expect(failureOf(await run("  - read_file: { file: a.csv, as: csv }\n", false))).toBe(
      'files are not kept by this runner (step kind "read_file")',
    );
  });

  it("refuses a file past max_bytes before reading it, and rows or lines past max_rows", async () => {
    await files.write("big.txt", new Uint8Array(2000).fill(0x61));
    await files.write("rows.csv", Buffer.from("n\n1\n2\n3\n"));
    expect(
      failureOf(await run("  - read_file: { file: big.txt, as: text, max_bytes: 1999 }\n")),
    ).toBe("read_file big.txt: the file is 2 KB (2000 bytes), over the limit of 2 KB (1999 bytes)");
    expect(
      dataOf(
        await run("  - read_file: { file: big.txt, as: text, max_bytes: 2000, save_as: t }\n"),
      ),
    ).toEqual({
      t: "a".repeat(2000),
    });
    expect(failureOf(await run("  - read_file: { file: rows.csv, as: csv, max_rows: 2 }\n"))).toBe(
      "read_file rows.csv as csv: more than 2 rows, the most read_file reads (max_rows); read a smaller file",
    );
    expect(
      failureOf(await run("  - read_file: { file: rows.csv, as: lines, max_rows: 3 }\n")),
    ).toBe(
      "read_file rows.csv as lines: more than 3 lines, the most read_file reads (max_rows); read a smaller file",
    );
    expect(
      dataOf(await run("  - read_file: { file: rows.csv, as: csv, max_rows: 3, save_as: r }\n")),
    ).toEqual({
      r: [{ n: "1" }, { n: "2" }, { n: "3" }],
    });
    expect(READ_FILE_MAX_BYTES).toBe(10 * 1024 * 1024);
  });

  it("a file that reads into more than the run's data may hold fails the step, saving nothing", async () => {
    await files.write("wide.txt", new Uint8Array(2 * 1024 * 1024).fill(0x62));
    expect(
      failureOf(await run("  - read_file: { file: wide.txt, as: text, save_as: t }\n")),
    ).toMatch(/^the run's data would be 2 MB as JSON, over its limit of 1 MB/);
  });
});
