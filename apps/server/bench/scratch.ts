import { measureApiLoad } from "./api-load.js";
const f = await measureApiLoad((process.env.FLAVOUR as "sqlite") ?? "sqlite", Number(process.env.SECONDS ?? 5));
const r = (x: { rps: number; p50: number; p99: number }) => `${Math.round(x.rps)} (${(x.rps / f.ceiling.rps).toFixed(2)}×) p50 ${x.p50} p99 ${x.p99}`;
console.log(`ceiling ${Math.round(f.ceiling.rps)} | get ${r(f.get)} | list ${r(f.list)} | post ${r(f.post)} | rss ${Math.round(f.rssMb)}`);
