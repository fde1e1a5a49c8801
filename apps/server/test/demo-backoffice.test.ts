import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { TOTP } from "otpauth";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_KEY } from "../src/demo/backoffice-login.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";

/**
 * The demo back office at /demo/backoffice/ over real HTTP: sign-in, sessions, the paginated
 * invoice table, the CSV export, the upload form and what hostile requests get. It does not
 * depend on the database flavour.
 */

const BASE = "/demo/backoffice";
// The data set's figures, as docs/skills.md states them.
const INVOICE_COUNT = 47;
const TOTAL_CENTS = 1_159_796; // 11597.96
const PAGE_SIZES = [10, 10, 10, 10, 7];

let server: TestServer;
let log = "";
// The server's clock, moved forward by the expiry test.
let now = Date.now();

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString("utf8");
      done();
    },
  });
  server = await startTestServer({
    clock: { now: () => new Date(now) },
    logger: pino({ level: "info" }, sink),
  });
});

afterAll(async () => {
  await server?.close();
});

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** One request, redirects not followed, with the session cookie when given. */
async function open(
  path: string,
  options: {
    session?: string;
    method?: string;
    body?: RequestInit["body"];
    headers?: RequestInit["headers"];
  } = {},
): Promise<Page> {
  const headers = new Headers(options.headers);
  if (options.session !== undefined) headers.set("cookie", `backoffice_session=${options.session}`);
  const response = await fetch(new URL(path, server.origin), {
    method: options.method ?? "GET",
    headers,
    body: options.body,
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function signInWith(username: string, password: string): Promise<Page> {
  return open(`${BASE}/login`, {
    method: "POST",
    body: new URLSearchParams({ username, password }),
  });
}

/** The session id a reply's cookie carries. */
function sessionIn(reply: Page): string {
  const cookie = reply.headers.getSetCookie()[0] ?? "";
  const id = /^backoffice_session=([^;]*)/.exec(cookie)?.[1];
  if (id === undefined) throw new Error(`no session cookie in ${cookie}`);
  return id;
}

/** The one-time code step of a half-signed-in session. */
function giveCode(session: string, code: string): Promise<Page> {
  return open(`${BASE}/code`, { method: "POST", session, body: new URLSearchParams({ code }) });
}

/** The code an authenticator app shows now for the demo account, by the server's clock. */
const currentCode = () => new TOTP({ secret: DEMO_TOTP_KEY }).generate({ timestamp: now });

/** Signs in with the demo account, password and code, and returns the session id. */
async function signIn(): Promise<string> {
  const reply = await signInWith("demo", "demo-password");
  expect(reply.status).toBe(303);
  const verified = await giveCode(sessionIn(reply), currentCode());
  expect(verified.status).toBe(303);
  return sessionIn(verified);
}

function expectLoginRedirect(reply: Page): void {
  expect(reply.status).toBe(303);
  expect(reply.headers.get("location")).toBe(`${BASE}/login`);
}

/** The text of the first element with this class, tags inside it removed. */
function textOf(html: string, className: string): string | undefined {
  const match = new RegExp(`class="${className}"[^>]*>(.*?)</(?:td|dd|span|p)>`, "s").exec(html);
  return match?.[1]?.replace(/<[^>]*>/g, "");
}

interface Row {
  number: string;
  customer: string;
  amount: string;
  date: string;
  link: string;
}

/** The rows of `table#invoices`, read as a skill's `extract` with fields would. */
function rowsOf(html: string): Row[] {
  const body = /<table id="invoices">.*?<tbody>(.*?)<\/tbody>/s.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map(([, row = ""]) => ({
    number: textOf(row, "number") ?? "",
    customer: textOf(row, "customer") ?? "",
    amount: textOf(row, "amount") ?? "",
    date: textOf(row, "date") ?? "",
    link: /<a href="([^"]*)"/.exec(row)?.[1] ?? "",
  }));
}

function linkOf(html: string, rel: "next" | "prev"): string | undefined {
  return new RegExp(`<a rel="${rel}" href="([^"]*)"`).exec(html)?.[1];
}

function cents(amount: string): number {
  expect(amount).toMatch(/^\d+\.\d\d$/);
  return Math.round(Number(amount) * 100);
}

describe("signing in to the back office", () => {
  it("shows a form with the fields a skill fills", async () => {
    const reply = await open(`${BASE}/login`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(reply.text).toContain('<input id="username" name="username"');
    expect(reply.text).toContain('<input id="password" name="password" type="password"');
    expect(reply.text).toContain('<button type="submit">Sign in</button>');
    expect(reply.text).toContain('href="/demo/demo.css"');
    expect(reply.text).not.toContain('class="error"');
  });

  it("asks the demo account for its one-time code, then opens the invoice table", async () => {
    const reply = await signInWith("demo", "demo-password");
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe(`${BASE}/code`);
    const half = sessionIn(reply);
    // Half signed in: the back office sends it to the code, which a wrong one does not pass.
    const early = await open(`${BASE}/invoices`, { session: half });
    expect([early.status, early.headers.get("location")]).toEqual([303, `${BASE}/code`]);
    const form = await open(`${BASE}/code`, { session: half });
    expect(form.text).toContain('<input id="code" name="code" inputmode="numeric"');
    for (const wrong of ["000000", "12345", "", "<b>1</b>"]) {
      const refused = await giveCode(half, wrong === currentCode() ? "999999" : wrong);
      expect(refused.status).toBe(401);
      expect(refused.text).toContain('<p class="error" role="alert">Wrong code</p>');
    }
    expect((await open(`${BASE}/code`)).headers.get("location")).toBe(`${BASE}/login`);
    const verified = await giveCode(half, currentCode());
    expect([verified.status, verified.headers.get("location")]).toEqual([303, `${BASE}/invoices`]);
    // A new session: the half-signed-in one is worth nothing now.
    expect(sessionIn(verified)).not.toBe(half);
    expect((await open(`${BASE}/invoices`, { session: half })).status).toBe(303);
    const cookies = reply.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const cookie = cookies[0] ?? "";
    expect(cookie).toMatch(/^backoffice_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("; Path=/demo/backoffice");
    expect(cookie).toContain("; HttpOnly");
    expect(cookie).toContain("; SameSite=Lax");
    expect(cookie).toContain("; Max-Age=1800");
    const expires = Date.parse(/; Expires=([^;]*)/.exec(cookie)?.[1] ?? "");
    expect(Math.abs(expires - (Date.now() + 1_800_000))).toBeLessThan(60_000);
    // Plain HTTP: a Secure cookie would never come back.
    expect(cookie).not.toContain("Secure");

    const other = await signIn();
    const first = /^backoffice_session=([^;]*)/.exec(cookie)?.[1];
    expect(other).not.toBe(first);
    const table = await open(`${BASE}/invoices`, { session: other });
    expect(table.status).toBe(200);
    expect(table.headers.get("cache-control")).toBe("no-store");
    expect(table.text).toContain('<a id="logout" href="/demo/backoffice/logout">');
  });

  it("refuses a wrong password or username with 401, the form and a visible error", async () => {
    for (const [username, password] of [
      ["demo", "wrong"],
      ["demo", "demo-password "],
      ["Demo", "demo-password"],
      ["", ""],
    ] as const) {
      const reply = await signInWith(username, password);
      expect(reply.status).toBe(401);
      expect(reply.headers.getSetCookie()).toEqual([]);
      expect(reply.text).toContain('<p class="error" role="alert">Wrong username or password</p>');
      expect(reply.text).toContain('<input id="password" name="password" type="password"');
    }
  });

  it("refuses a form without fields, or not a form at all, and escapes what it shows back", async () => {
    const empty = await open(`${BASE}/login`, { method: "POST" });
    expect(empty.status).toBe(401);
    const json = await open(`${BASE}/login`, {
      method: "POST",
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
      headers: { "content-type": "application/json" },
    });
    expect(json.status).toBe(401);
    const hostile = await signInWith('<script>alert("x")</script>', "x");
    expect(hostile.status).toBe(401);
    expect(hostile.text).toContain('value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"');
    expect(hostile.text).not.toContain("<script>");
  });

  it("refuses a login form over 4 KiB with a 413 page", async () => {
    const reply = await signInWith("demo", "x".repeat(5000));
    expect(reply.status).toBe(413);
    expect(reply.text).toContain('class="error"');
  });

  it("signs out: the session no longer opens anything", async () => {
    const session = await signIn();
    const reply = await open(`${BASE}/logout`, { session });
    expectLoginRedirect(reply);
    expect(reply.headers.getSetCookie()[0]).toMatch(
      /^backoffice_session=; Path=\/demo\/backoffice;/,
    );
    expectLoginRedirect(await open(`${BASE}/invoices`, { session }));
  });
});

describe("back office sessions", () => {
  const GUARDED = [
    `${BASE}/invoices`,
    `${BASE}/invoices?page=2`,
    `${BASE}/invoices/export.csv`,
    `${BASE}/invoices/INV-1001`,
    `${BASE}/upload`,
    `${BASE}/no-such-page`,
  ];

  it("sends every page but the login to the login page without a session", async () => {
    for (const path of GUARDED) expectLoginRedirect(await open(path));
    const upload = new FormData();
    upload.set("file", new Blob(["a\n"]), "a.txt");
    expectLoginRedirect(await open(`${BASE}/upload`, { method: "POST", body: upload }));
    // The back office's root leads to the table, which leads to the login.
    const root = await open(`${BASE}/`);
    expect(root.status).toBe(303);
    expect(root.headers.get("location")).toBe(`${BASE}/invoices`);
  });

  it("sends forged and malformed cookies to the login page", async () => {
    const real = await signIn();
    // The real id with its last character changed.
    const nearMiss = `${real.slice(0, -1)}${real.endsWith("A") ? "B" : "A"}`;
    const forged = [
      randomBytes(32).toString("base64url"),
      "",
      "../../etc/passwd",
      "%00",
      "x".repeat(4000),
      nearMiss,
      `${real}A`,
    ];
    for (const session of forged) {
      expectLoginRedirect(await open(`${BASE}/invoices`, { session }));
    }
    // The real id opens the table, also among other cookies.
    const among = await open(`${BASE}/invoices`, {
      headers: { cookie: `theme=dark; backoffice_session=${real}; x=1` },
    });
    expect(among.status).toBe(200);
  });

  it("ends a session 30 minutes after signing in", async () => {
    const session = await signIn();
    now += 29 * 60_000;
    try {
      expect((await open(`${BASE}/invoices`, { session })).status).toBe(200);
      now += 60_000;
      expectLoginRedirect(await open(`${BASE}/invoices`, { session }));
    } finally {
      now = Date.now();
    }
  });

  it("keeps at most 1000: a flood of logins drops the oldest sessions", async () => {
    const oldest = await signIn();
    const flood: string[] = [];
    // 10 at a time, 1000 in all: the oldest is the 1001st most recent.
    for (let batch = 0; batch < 100; batch += 1) {
      flood.push(...(await Promise.all(Array.from({ length: 10 }, () => signIn()))));
    }
    expectLoginRedirect(await open(`${BASE}/invoices`, { session: oldest }));
    for (const session of [flood[0], flood.at(-1)]) {
      expect((await open(`${BASE}/invoices`, { session })).status).toBe(200);
    }
  }, 60_000);

  it("keeps session ids and passwords out of the server's log", async () => {
    const session = await signIn();
    await open(`${BASE}/invoices`, { session });
    await signInWith("demo", "a-wrong-password-in-the-log");
    expect(log).toContain(`${BASE}/login`);
    for (const secret of [session, "demo-password", "a-wrong-password-in-the-log"]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe("the invoice table", () => {
  let session: string;
  beforeAll(async () => {
    session = await signIn();
  });

  it("walks through every page by rel=next, 10 rows a page, to the documented totals", async () => {
    const rows: Row[] = [];
    const sizes: number[] = [];
    let path: string | undefined = `${BASE}/invoices`;
    let previous: string | undefined;
    while (path !== undefined) {
      const page = await open(path, { session });
      expect(page.status).toBe(200);
      const found = rowsOf(page.text);
      sizes.push(found.length);
      rows.push(...found);
      // A previous link exactly where a page came before, pointing back at it.
      expect(linkOf(page.text, "prev")).toBe(previous);
      expect(page.text).toContain(`Page ${sizes.length} of 5`);
      previous = `${BASE}/invoices?page=${sizes.length}`;
      path = linkOf(page.text, "next");
      expect(sizes.length).toBeLessThanOrEqual(5);
    }
    expect(sizes).toEqual(PAGE_SIZES);
    expect(rows).toHaveLength(INVOICE_COUNT);
    expect(rows.map((row) => row.number)).toEqual(
      Array.from({ length: INVOICE_COUNT }, (_, i) => `INV-${1001 + i}`),
    );
    expect(rows.reduce((sum, row) => sum + cents(row.amount), 0)).toBe(TOTAL_CENTS);
    expect(rows.filter((row) => cents(row.amount) > 100_00)).toHaveLength(39);
    const amounts = rows.map((row) => cents(row.amount));
    expect([Math.min(...amounts), Math.max(...amounts)]).toEqual([28_59, 467_01]);
    expect(rows[0]).toEqual({
      number: "INV-1001",
      customer: "Acme Tools",
      amount: "98.07",
      date: "2024-01-03",
      link: `${BASE}/invoices/INV-1001`,
    });
    expect(rows.at(-1)).toMatchObject({ number: "INV-1047", amount: "309.29", date: "2024-11-20" });
    // Data is escaped, not dropped.
    expect(rows[2]?.customer).toBe("Smith, Jones &amp; Co");
    expect(rows[3]?.customer).toBe("Café &quot;Le Coin&quot;");
  });

  it("states the count and total, and links the export", async () => {
    const page = await open(`${BASE}/invoices?page=3`, { session });
    expect(page.text).toContain("47 invoices, 11597.96 in total.");
    expect(page.text).toContain('<a id="export" href="/demo/backoffice/invoices/export.csv">');
  });

  it("opens each row's invoice, which links back to its page", async () => {
    const page = await open(`${BASE}/invoices?page=5`, { session });
    const row = rowsOf(page.text)[6];
    expect(row?.number).toBe("INV-1047");
    const detail = await open(row?.link ?? "", { session });
    expect(detail.status).toBe(200);
    expect(textOf(detail.text, "number")).toBe("INV-1047");
    expect(textOf(detail.text, "amount")).toBe("309.29");
    expect(detail.text).toContain(`<a id="back" href="${BASE}/invoices?page=5">`);
    for (const missing of ["INV-1048", "INV-1000", "inv-1001", "%3Cscript%3E"]) {
      const reply = await open(`${BASE}/invoices/${missing}`, { session });
      expect(reply.status).toBe(404);
      expect(reply.text).toContain('class="error"');
      expect(reply.text).not.toContain("<script>");
    }
  });

  it("answers a malformed page number with a 400 page", async () => {
    for (const page of ["-1", "0", "abc", "1.5", "1e1", "+2", " 1", "", "01", "2&page=3", "%00"]) {
      const reply = await open(`${BASE}/invoices?page=${page}`, { session });
      expect(reply.status, `page=${page}`).toBe(400);
      expect(reply.text).toContain('<p class="error" role="alert">The page must be a whole');
    }
  });

  it("answers a page past the last with a 404 page, however large", async () => {
    for (const page of ["6", "4294967296", "99999999999999999999999", "9".repeat(2000)]) {
      const reply = await open(`${BASE}/invoices?page=${page}`, { session });
      expect(reply.status).toBe(404);
      expect(reply.text).toContain('<p class="error" role="alert">There are 5 pages');
    }
  });

  it("answers an unknown back office path with a 404 page", async () => {
    const reply = await open(`${BASE}/invoices/INV-1001/edit`, { session });
    expect(reply.status).toBe(404);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});

describe("the CSV export", () => {
  it("is every invoice as an attachment named invoices.csv", async () => {
    const session = await signIn();
    const reply = await open(`${BASE}/invoices/export.csv`, { session });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(reply.headers.get("content-disposition")).toBe('attachment; filename="invoices.csv"');
    const lines = reply.text.split("\r\n");
    expect(lines.pop()).toBe(""); // the last line ends with CRLF too
    expect(lines).toHaveLength(INVOICE_COUNT + 1);
    expect(lines[0]).toBe("number,customer,amount,date");
    expect(lines[1]).toBe("INV-1001,Acme Tools,98.07,2024-01-03");
    expect(lines[3]).toBe('INV-1003,"Smith, Jones & Co",244.21,2024-01-17');
    expect(lines[4]).toBe('INV-1004,"Café ""Le Coin""",317.28,2024-01-24');
    // The customer is the only field that may hold a comma: amount is the second from the end.
    const total = lines
      .slice(1)
      .reduce((sum, line) => sum + cents(line.split(",").at(-2) ?? ""), 0);
    expect(total).toBe(TOTAL_CENTS);
  });
});

describe("the upload form", () => {
  let session: string;
  beforeAll(async () => {
    session = await signIn();
  });

  function upload(body: FormData | string, headers?: RequestInit["headers"]): Promise<Page> {
    return open(`${BASE}/upload`, { session, method: "POST", body, ...(headers && { headers }) });
  }

  function formWith(content: string | Uint8Array, name: string, field = "file"): FormData {
    const form = new FormData();
    form.set(field, new Blob([content]), name);
    return form;
  }

  it("shows a file input and a submit button", async () => {
    const reply = await open(`${BASE}/upload`, { session });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('enctype="multipart/form-data"');
    expect(reply.text).toContain('<input id="file" name="file" type="file">');
    expect(reply.text).toContain('<button type="submit">Upload</button>');
    expect(reply.text).not.toContain('id="upload-result"');
  });

  it("answers the exported CSV with its name, size and line count", async () => {
    const csv = await open(`${BASE}/invoices/export.csv`, { session });
    const bytes = new TextEncoder().encode(csv.text);
    const reply = await upload(formWith(bytes, "invoices.csv"));
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('<section id="upload-result">');
    expect(textOf(reply.text, "file-name")).toBe("invoices.csv");
    expect(textOf(reply.text, "file-size")).toBe(String(bytes.length));
    expect(textOf(reply.text, "line-count")).toBe(String(INVOICE_COUNT + 1));
  });

  it("counts a last line without a newline, and an empty file as none", async () => {
    for (const [content, lines] of [
      ["a\nb", "2"],
      ["a\nb\n", "2"],
      ["\n\n", "2"],
      ["", "0"],
    ] as const) {
      const reply = await upload(formWith(content, "lines.txt"));
      expect(reply.status).toBe(200);
      expect(textOf(reply.text, "line-count"), JSON.stringify(content)).toBe(lines);
    }
  });

  it("shows the file's name escaped, and non-ASCII names as sent", async () => {
    const hostile = await upload(formWith("x", '<img src=x onerror="alert(1)">.csv'));
    expect(hostile.status).toBe(200);
    expect(textOf(hostile.text, "file-name")).toBe(
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.csv",
    );
    const accented = await upload(formWith("x", "réservé.csv"));
    expect(textOf(accented.text, "file-name")).toBe("réservé.csv");
  });

  it("takes exactly 1 MiB, and answers one byte more with a 413 page", async () => {
    const limit = 1024 * 1024;
    const full = await upload(formWith(new Uint8Array(limit).fill(0x61), "full.txt"));
    expect(full.status).toBe(200);
    expect(textOf(full.text, "file-size")).toBe(String(limit));
    const over = await upload(formWith(new Uint8Array(limit + 1).fill(0x61), "over.txt"));
    expect(over.status).toBe(413);
    expect(over.text).toContain('<p class="error" role="alert">The file is larger than the limit');
    const huge = await upload(formWith(new Uint8Array(8 * limit), "huge.txt"));
    expect(huge.status).toBe(413);
    // The connection and the server are fine afterwards.
    expect((await upload(formWith("ok\n", "after.txt"))).status).toBe(200);
  });

  it("refuses a missing file, another field's file and a malformed body with a 400 page", async () => {
    const cases: [string, Promise<Page>][] = [
      ["no file", upload(new FormData())],
      ["empty file input", upload(formWith("", ""))],
      ["another field", upload(formWith("x", "a.txt", "other"))],
      [
        "two files",
        (() => {
          const form = formWith("x", "a.txt");
          form.append("file", new Blob(["y"]), "b.txt");
          return upload(form);
        })(),
      ],
      ["not multipart", upload("file=x", { "content-type": "application/x-www-form-urlencoded" })],
      ["no boundary", upload("--x\r\n", { "content-type": "multipart/form-data" })],
      [
        "cut short",
        upload('--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc', {
          "content-type": "multipart/form-data; boundary=x",
        }),
      ],
    ];
    for (const [label, reply] of cases) {
      const { status, text } = await reply;
      expect(status, label).toBe(400);
      expect(text, label).toContain('class="error"');
    }
  });
});

describe("the demo's files", () => {
  /** A raw request, so that the path reaches the server as written (fetch would resolve "..").*/
  function rawGet(path: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(server.origin);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: hostname, port, path }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("are the only files served under /demo/", async () => {
    expect((await rawGet("/demo/demo.css")).status).toBe(200);
    for (const path of [
      "/demo/../package.json",
      "/demo/%2e%2e/package.json",
      "/demo/..%2fpackage.json",
      "/demo/%2e%2e%2f%2e%2e%2fpackage.json",
      "/demo/..%5cpackage.json",
      "/demo/backoffice/../../package.json",
      "/demo/backoffice/..%2f..%2fpackage.json",
      "/demo/%2e%2e/src/app.ts",
      "/demo//etc/passwd",
      "/demo/%2fetc%2fpasswd",
    ]) {
      const reply = await rawGet(path);
      expect(reply.status, path).toBeGreaterThanOrEqual(300);
      expect(reply.status, path).toBeLessThan(500);
      expect(reply.body, path).not.toContain("@skillrun/server");
      expect(reply.body, path).not.toContain("createApp");
      expect(reply.body, path).not.toContain("root:");
    }
  });
});
