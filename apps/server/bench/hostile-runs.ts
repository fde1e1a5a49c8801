// While four hostile runs execute (a catastrophic regex, JSONata over a 50 MB document, a tight
// loop, an allocation past the run's memory limit), how fast do /healthz and GET /v1/run/{id}
// answer? The target is p99 ≤ 100 ms; the script exits 1 above it. SQLite (or TEST_FLAVOUR).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer } from "../src/test-support/test-server.js";

const TARGET_P99_MS = 100;
const PROBE_MS = 10_000;

// About 50 MB of JSON: 500,000 items of ~100 bytes.
const items = Array.from({ length: 500_000 }, (_, i) => ({
  id: i,
  name: `item number ${i} with some padding text to make it longer`,
  value: i % 97,
}));
const document = JSON.stringify({ items });
const fixture = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json" }).end(document);
});
await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
const fixtureUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/doc.json`;

const SKILLS = [
  `
id: skill_regex
name: Catastrophic regex
timeout: 30s
inputs:
  - { json_key: s, data_type: string }
steps:
  - set: { matched: "{{ $contains(inputs.s, /^(a+)+$/) }}" }
`,
  `
id: skill_big_json
name: JSONata over 50 MB
timeout: 60s
inputs:
  - { json_key: url, data_type: string }
steps:
  - id: doc
    http: { url: "{{ inputs.url }}", max_bytes: 60000000, timeout: 30s }
  - set: { heavy: "{{ $count(steps.doc.body.items[value > 50]) }}" }
  - set: { total: "{{ $sum(steps.doc.body.items.value) }}" }
`,
  `
id: skill_loop
name: Tight loop
timeout: 60s
steps:
${Array.from({ length: 12 }, () => `  - set: { n: "{{ $sum([1..999999]) }}" }`).join("\n")}
`,
  `
id: skill_alloc
name: Big allocation
steps:
  - set: { size: "{{ $length($pad('', 400000000, 'x')) }}" }
`,
];

const server = await startTestServer({ worker: { concurrency: 4, memoryMb: 1024 } });
const samples: number[] = [];
try {
  await server.importSkillYaml("bench", ...SKILLS);
  const key = await server.keyFor("bench");
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const start = async (skill_id: string, inputs: Record<string, unknown> = {}) => {
    const reply = await fetch(`${server.baseUrl}/run/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ skill_id, inputs }),
    });
    return ((await reply.json()) as { id: string }).id;
  };
  const ids = [
    await start("skill_regex", { s: `${"a".repeat(28)}!` }),
    await start("skill_big_json", { url: fixtureUrl }),
    await start("skill_loop"),
    await start("skill_alloc"),
  ];
  const deadline = Date.now() + PROBE_MS;
  let turn = 0;
  while (Date.now() < deadline) {
    const id = ids[turn % ids.length] as string;
    const url = turn % 2 === 0 ? `${server.origin}/healthz` : `${server.baseUrl}/run/${id}`;
    const sent = performance.now();
    const reply = await fetch(url, { headers });
    await reply.arrayBuffer();
    samples.push(performance.now() - sent);
    if (!reply.ok) throw new Error(`${url} answered ${reply.status}`);
    turn += 1;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const states: string[] = [];
  for (const id of ids) {
    const reply = await fetch(`${server.baseUrl}/run/${id}`, { headers });
    states.push(String(((await reply.json()) as { state: string | null }).state));
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const p99 = at(0.99) as number;
  console.log(
    `/healthz and GET /v1/run/{id} under 4 hostile runs, ${samples.length} requests: ` +
      `p50 ${at(0.5)?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${samples.at(-1)?.toFixed(1)} ms ` +
      `(target p99 ≤ ${TARGET_P99_MS} ms); runs then: ${states.join(", ")}`,
  );
  process.exitCode = p99 <= TARGET_P99_MS ? 0 : 1;
} finally {
  await server.close();
  fixture.close();
}
