import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FILE_ROUTES } from "./fixture-files.js";
import { INTERACTION_PAGES } from "./interaction-pages.js";
import { ONE_TIME_CODE_ROUTES } from "./one-time-code-pages.js";

/** Rows of the invoice table: enough to show a list read at once (60 > Node's 10 listeners). */
export const INVOICE_ROWS = 60;

/** An invoice table; every third row has no link, so that field is null there. */
function invoicePage(): string {
  const rows = Array.from({ length: INVOICE_ROWS }, (_, index) => {
    const n = index + 1;
    const link = n % 3 === 0 ? "" : `<a href="/invoice/${n}">open</a>`;
    return `<tr><td class="number"> INV-${n} </td><td class="amount">${n * 10}.00</td><td>${link}</td></tr>`;
  });
  return `<!doctype html><title>Invoices</title>
<table id="invoices"><thead><tr><th>Number</th><th>Amount</th><th></th></tr></thead>
<tbody>${rows.join("\n")}</tbody></table>
<table id="empty"><tbody></tbody></table>`;
}

/** Pages of a paged list: 3 pages of 2 rows, each but the last linking the next. */
export const LIST_PAGES = 3;

function listPage(page: number): string {
  const rows = [1, 2].map((row) => {
    const n = (page - 1) * 2 + row;
    return `<tr><td class="number">N-${n}</td><td class="amount">${n}.50</td></tr>`;
  });
  const next = page < LIST_PAGES ? `<a rel="next" href="/list/${page + 1}">Next</a>` : "";
  return `<!doctype html><title>List ${page}</title>
<table id="list"><tbody>${rows.join("")}</tbody></table>${next}`;
}

// Pages the browser tests drive, served from 127.0.0.1 (the tests have no internet).
const PAGES: Record<string, string> = {
  // A note kept in localStorage as it is typed, and a cookie set by the page: what a checkpoint's
  // browser must bring back.
  "/remember": `<!doctype html><title>Remember</title>
<input id="note"><p id="stored"></p><p id="cookie"></p>
<script>
const note = document.getElementById("note");
note.value = localStorage.getItem("note") ?? "";
document.getElementById("stored").textContent = localStorage.getItem("note") ?? "nothing";
document.getElementById("cookie").textContent = document.cookie || "no cookie";
note.addEventListener("input", () => {
  localStorage.setItem("note", note.value);
  document.cookie = "seen=yes; max-age=3600; path=/";
});
</script>`,
  "/form": `<!doctype html><title>Form</title>
<form id="order">
  <input id="name" name="name">
  <input id="quantity" name="quantity">
  <select id="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select>
  <button id="submit" type="submit">Order</button>
</form>
<input id="search">
<input id="pin" type="password" aria-label="PIN">
<button id="later" disabled>Later</button>
<p id="search-result" hidden></p>
<ul id="links"><li><a class="item" href="/one">One</a></li><li><a class="item" href="/two">Two</a></li><li><a class="item" href="/three"> Three </a></li></ul>
<h1 id="status">Pending review</h1>
<script>
  document.getElementById("order").addEventListener("submit", (event) => {
    event.preventDefault();
    // Answers a little later, as a real page waiting on a server would.
    setTimeout(() => {
      const result = document.createElement("p");
      result.id = "result";
      result.textContent = "Ordered " + document.getElementById("quantity").value + " × " +
        document.getElementById("name").value + " (" + document.getElementById("size").value + ")";
      document.body.append(result);
    }, 300);
  });
  document.getElementById("search").addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    const out = document.getElementById("search-result");
    out.textContent = "Searched for " + event.target.value;
    out.hidden = false;
  });
</script>`,
  "/invoices": invoicePage(),
  ...Object.fromEntries(
    Array.from({ length: LIST_PAGES }, (_, i) => [`/list/${i + 1}`, listPage(i + 1)]),
  ),
  // Loads, then keeps its one thread busy for good: nothing on it can answer the browser again.
  "/busy": `<!doctype html><title>Busy</title><button id="go">Go</button>
<script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0));</script>`,
  "/static": `<!doctype html><title>Static</title><h1 id="title">Nothing moves here</h1>`,
  // Takes 1 GB in 32 MB steps, each written to so that it is resident, then says it is done.
  "/hog": `<!doctype html><title>Hog</title><h1>Taking memory</h1>
<script>
  const kept = [];
  const grow = () => {
    if (kept.length === 32) {
      const done = document.createElement("p");
      done.id = "done";
      done.textContent = "Took " + kept.length * 32 + " MB";
      document.body.append(done);
      return;
    }
    kept.push(new Uint8Array(32 * 1024 * 1024).fill(1));
    setTimeout(grow, 50);
  };
  grow();
</script>`,
  // The status is read (well within 1.5 s of loading), then leaves the page, so a later read can
  // only run out of time.
  "/vanishing": `<!doctype html><title>Vanishing</title><h1 id="status">Pending review</h1>
<script>setTimeout(() => document.getElementById("status").remove(), 1500);</script>`,
  ...INTERACTION_PAGES,
};

/** A local web server for the fixture pages; `close` ends it with its connections. */
export interface FixtureSite {
  base: string;
  close(): Promise<void>;
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const route = FILE_ROUTES[path] ?? ONE_TIME_CODE_ROUTES[path];
    if (route !== undefined) {
      void route(request, response);
      return;
    }
    const page = PAGES[path];
    if (page === undefined) response.writeHead(404, { "content-type": "text/plain" }).end("none");
    else response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
