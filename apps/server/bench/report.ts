// The bench's table: each figure beside its target, printed and written into BENCHMARKS.md
// between its markers (the text around them is written by people).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem, type } from "node:os";
import { fileURLToPath } from "node:url";
import type { ApiLoadFigures } from "./api-load.js";
import type { FinishLagFigures } from "./finish-lag.js";
import type { ListAtScaleFigures } from "./list-at-scale.js";
import type { DispatchFigures, PipelineFigures } from "./pipeline.js";

export interface FlavourFigures {
  api: ApiLoadFigures;
  pipeline: PipelineFigures;
  dispatch: DispatchFigures;
  list: ListAtScaleFigures;
}

export interface BenchFigures {
  /** The PostgreSQL server measured: its version and whether it syncs commits to disk. */
  postgresServer: string;
  sqlite: FlavourFigures;
  postgres: FlavourFigures;
  finishLag: FinishLagFigures;
  seconds: number;
}

interface Row {
  figure: string;
  sqlite: string;
  postgres: string;
  target: string;
  /** Whether each flavour meets the target (undefined: not measured on it). */
  met: [boolean | undefined, boolean | undefined];
}

const ms = (value: number) => `${Math.round(value)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}×`;
const rate = (value: number) => `${Math.round(value).toLocaleString("en")}/s`;

const fastapiText = (api: ApiLoadFigures) =>
  `${rate(api.fastapi.get.rps)}, p99 ${ms(api.fastapi.get.p99)}; ${rate(api.fastapi.post.rps)}, p99 ${ms(api.fastapi.post.p99)}`;
const postVersusFastapi = (api: ApiLoadFigures) =>
  `${ratio(api.post.p99 / api.fastapi.post.p99)}; ${ratio(api.post.rps / api.fastapi.post.rps)}`;

function rows(f: BenchFigures): Row[] {
  const both = <T>(pick: (figures: FlavourFigures) => T) =>
    [pick(f.sqlite), pick(f.postgres)] as const;
  const apiRow = (
    name: string,
    pick: (api: ApiLoadFigures) => { rps: number; p50: number; p99: number },
    minRatio: number,
    maxP99?: number,
  ): Row => {
    const [s, p] = both((figures) => {
      const measured = pick(figures.api);
      return { ...measured, ratio: measured.rps / figures.api.ceiling.rps };
    });
    const text = (m: typeof s) =>
      `${rate(m.rps)} = ${ratio(m.ratio)}; p50 ${ms(m.p50)}, p99 ${ms(m.p99)}`;
    const meets = (m: typeof s) => m.ratio >= minRatio && (maxP99 === undefined || m.p99 <= maxP99);
    return {
      figure: name,
      sqlite: text(s),
      postgres: text(p),
      target: `≥ ${minRatio}× ceiling${maxP99 === undefined ? "" : `, p99 ≤ ${maxP99} ms`}`,
      met: [meets(s), meets(p)],
    };
  };
  const listP99 = (figures: FlavourFigures) =>
    Math.max(...Object.values(figures.list.byFilter).map((result) => result.p99));
  const [pipeS, pipeP] = both((figures) => figures.pipeline);
  const [dispS, dispP] = both((figures) => figures.dispatch);
  const pipelineText = (p: PipelineFigures) =>
    `${rate(p.runsPerSecond)}; p50 ${ms(p.p50)}, p99 ${ms(p.p99)}${p.notFinished ? `; ${p.notFinished} not finished` : ""}`;
  const pipelineMet = (p: PipelineFigures) =>
    p.runsPerSecond >= 300 && p.p99 <= 5000 && p.notFinished === 0;
  return [
    {
      figure: "ceiling: bare Express 5, constant RunSession",
      sqlite: `${rate(f.sqlite.api.ceiling.rps)}; p50 ${ms(f.sqlite.api.ceiling.p50)}, p99 ${ms(f.sqlite.api.ceiling.p99)}`,
      postgres: `${rate(f.postgres.api.ceiling.rps)}; p50 ${ms(f.postgres.api.ceiling.p50)}, p99 ${ms(f.postgres.api.ceiling.p99)}`,
      target: "(the yardstick)",
      met: [undefined, undefined],
    },
    {
      figure: "floor of the stack: the same with the access log and express-openapi-validator",
      sqlite: `${rate(f.sqlite.api.stackFloor.rps)} = ${ratio(f.sqlite.api.stackFloor.rps / f.sqlite.api.ceiling.rps)}; p50 ${ms(f.sqlite.api.stackFloor.p50)}, p99 ${ms(f.sqlite.api.stackFloor.p99)}`,
      postgres: `${rate(f.postgres.api.stackFloor.rps)} = ${ratio(f.postgres.api.stackFloor.rps / f.postgres.api.ceiling.rps)}; p50 ${ms(f.postgres.api.stackFloor.p50)}, p99 ${ms(f.postgres.api.stackFloor.p99)}`,
      target: "(what the libraries leave)",
      met: [undefined, undefined],
    },
    {
      figure: "the same answering `GET /run/list?limit=20` with the server's page of 20 runs",
      sqlite: `${rate(f.sqlite.api.pageFloor.rps)} = ${ratio(f.sqlite.api.pageFloor.rps / f.sqlite.api.ceiling.rps)}; p50 ${ms(f.sqlite.api.pageFloor.p50)}, p99 ${ms(f.sqlite.api.pageFloor.p99)}`,
      postgres: `${rate(f.postgres.api.pageFloor.rps)} = ${ratio(f.postgres.api.pageFloor.rps / f.postgres.api.ceiling.rps)}; p50 ${ms(f.postgres.api.pageFloor.p50)}, p99 ${ms(f.postgres.api.pageFloor.p99)}`,
      target: "(what they leave a page)",
      met: [undefined, undefined],
    },
    {
      figure:
        "FastAPI reference (uvicorn; the same database, psycopg2 on PostgreSQL): `GET /run/{id}`; `POST /run/`",
      sqlite: fastapiText(f.sqlite.api),
      postgres: fastapiText(f.postgres.api),
      target: "(the origin's stack, measured beside each flavour on a database of its own)",
      met: [undefined, undefined],
    },
    {
      figure: "`GET /run/{id}` p99 ÷ FastAPI's p99",
      sqlite: ratio(f.sqlite.api.get.p99 / f.sqlite.api.fastapi.get.p99),
      postgres: ratio(f.postgres.api.get.p99 / f.postgres.api.fastapi.get.p99),
      target: "≤ 2×",
      met: [...both((figures) => figures.api.get.p99 <= 2 * figures.api.fastapi.get.p99)],
    },
    {
      figure: "`POST /run/` p99 ÷ FastAPI's p99; throughput ÷ FastAPI's",
      sqlite: postVersusFastapi(f.sqlite.api),
      postgres: postVersusFastapi(f.postgres.api),
      target: "p99 ≤ 2×; throughput ≥ 1.0×",
      met: [
        ...both(
          (figures) =>
            figures.api.post.p99 <= 2 * figures.api.fastapi.post.p99 &&
            figures.api.post.rps >= figures.api.fastapi.post.rps,
        ),
      ],
    },
    apiRow("`GET /run/{id}`", (api) => api.get, 0.5, 20),
    apiRow("`GET /run/list?limit=20`", (api) => api.list, 0.25),
    apiRow("`POST /run/`", (api) => api.post, 0.3, 40),
    {
      figure: `pipeline: ${pipeS.runs.toLocaleString("en")} one-step runs, created → ended`,
      sqlite: pipelineText(pipeS),
      postgres: pipelineText(pipeP),
      target: "≥ 300 runs/s; p99 ≤ 5 s",
      met: [pipelineMet(pipeS), pipelineMet(pipeP)],
    },
    {
      figure: `dispatch: created → claimed by an idle worker (${dispS.samples} runs)`,
      sqlite: `p50 ${ms(dispS.p50)}, p99 ${ms(dispS.p99)}`,
      postgres: `p50 ${ms(dispP.p50)}, p99 ${ms(dispP.p99)}`,
      target: "p50 ≤ 5 ms, p99 ≤ 25 ms",
      met: [dispS.p50 <= 5 && dispS.p99 <= 25, dispP.p50 <= 5 && dispP.p99 <= 25],
    },
    {
      figure: `\`GET /run/list?limit=20\` with ${f.sqlite.list.runs.toLocaleString("en")} runs, worst filter`,
      sqlite: `p99 ${ms(listP99(f.sqlite))}`,
      postgres: `p99 ${ms(listP99(f.postgres))}`,
      target: "p99 ≤ 10 ms, every filter",
      met: [listP99(f.sqlite) <= 10, listP99(f.postgres) <= 10],
    },
    {
      figure: "server RSS at the end of the API load",
      sqlite: `${Math.round(f.sqlite.api.rssMb)} MB`,
      postgres: `${Math.round(f.postgres.api.rssMb)} MB`,
      target: "≤ 200 MB",
      met: [f.sqlite.api.rssMb <= 200, f.postgres.api.rssMb <= 200],
    },
    {
      figure: `browser finish lag (a ${f.finishLag.runSeconds.toFixed(1)} s run)`,
      sqlite: ms(f.finishLag.lagMs),
      postgres: "(not measured)",
      target: "≤ 1 s",
      met: [f.finishLag.lagMs <= 1000, undefined],
    },
  ];
}

function mark(met: boolean | undefined): string {
  if (met === undefined) return "";
  return met ? " ✓" : " ✗ missed";
}

function tableOf(f: BenchFigures): string {
  const lines = ["| figure | SQLite | PostgreSQL | target |", "|---|---|---|---|"];
  for (const row of rows(f)) {
    lines.push(
      `| ${row.figure} | ${row.sqlite}${mark(row.met[0])} | ${row.postgres}${mark(row.met[1])} | ${row.target} |`,
    );
  }
  return lines.join("\n");
}

function listTableOf(f: BenchFigures): string {
  const lines = ["| filter | SQLite p50 / p99 | PostgreSQL p50 / p99 |", "|---|---|---|"];
  for (const name of Object.keys(
    f.sqlite.list.byFilter,
  ) as (keyof typeof f.sqlite.list.byFilter)[]) {
    const s = f.sqlite.list.byFilter[name];
    const p = f.postgres.list.byFilter[name];
    lines.push(`| ${name} | ${ms(s.p50)} / ${ms(s.p99)} | ${ms(p.p50)} / ${ms(p.p99)} |`);
  }
  return lines.join("\n");
}

function machine(seconds: number, postgresServer: string): string {
  const cpu = cpus();
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  return [
    `- Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${type()}; Node.js ${process.version}`,
    `- Commit ${commit}, measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench\``,
    `- Load: autocannon in its own process on the same machine, 32 connections, 2 s warm-up, then ${seconds} s measured`,
    `- SQLite: a file on the machine's disk (WAL, synchronous FULL); PostgreSQL: ${postgresServer}`,
  ].join("\n");
}

/** The whole generated part of BENCHMARKS.md. */
export function report(f: BenchFigures): string {
  const lines = [
    machine(f.seconds, f.postgresServer),
    "",
    tableOf(f),
    "",
    `The run list with ${f.sqlite.list.runs.toLocaleString("en")} runs stored, one request at a time:`,
    "",
    listTableOf(f),
  ];
  return lines.join("\n");
}

/** Replaces what lies between `<!-- name:start -->` and `<!-- name:end -->` in `file`. */
export function writeBetween(file: string, name: string, generated: string): void {
  const START = `<!-- ${name}:start -->`;
  const END = `<!-- ${name}:end -->`;
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start)
    throw new Error(`${file} has no ${START} … ${END} to write between`);
  writeFileSync(file, `${text.slice(0, start + START.length)}\n${generated}\n${text.slice(end)}`);
  // The tables as the linter formats them (columns aligned), so that `npm run lint` passes after
  // a bench has written them.
  const biome = fileURLToPath(new URL("../../../node_modules/.bin/biome", import.meta.url));
  execFileSync(biome, ["format", "--write", file], { stdio: "ignore" });
}

/** Writes the main table into BENCHMARKS.md. */
export function writeReport(file: string, generated: string): void {
  writeBetween(file, "bench", generated);
}

export function printTable(f: BenchFigures): void {
  console.log(`\n${tableOf(f)}\n\n${listTableOf(f)}\n`);
}
