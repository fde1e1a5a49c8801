import { measurePipeline } from "./pipeline.js";
console.log(await measurePipeline((process.env.FLAVOUR as "sqlite") ?? "sqlite", Number(process.env.RUNS ?? 600)));
