import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

// Files the fixture site serves for downloads, a page that sets a session cookie, and a form
// whose server answers with what it received, for the download and upload tests.

/** The CSV export, exactly. */
export const REPORT_CSV = Buffer.from("number,amount\nINV-1,10.00\nINV-2,20.50\nINV-3,7.25\n");

/**
 * A spreadsheet's CSV export as spreadsheets write them: a byte order mark, CRLF line ends,
 * quoted fields holding commas, quotes and a line break, accents.
 */
export const CUSTOMERS_CSV = Buffer.from(
  '\ufeffname,city,note\r\n"Müller, Anna",Zürich,"said ""hi"""\r\nBob,"Paris","two\r\nlines"\r\n',
);

/** A small PDF, with the binary comment line real ones have (bytes over 127). */
export const REPORT_PDF = Buffer.concat([
  Buffer.from("%PDF-1.4\n%"),
  Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]),
  Buffer.from(
    "\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
      "2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n" +
      "trailer << /Root 1 0 R >>\n%%EOF\n",
  ),
]);

/** The session cookie `/files/login` sets and `/files/private/*` asks for. */
export const SESSION_COOKIE = "fixture_session";
export const SESSION_VALUE = "s3cr3t-session";

/** Bytes `/files/large.bin` sends, in chunks, slowly enough to be measured while it downloads. */
export const LARGE_BYTES = 3 * 1024 * 1024;

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

const attachment = (name: string) => `attachment; filename="${name}"`;

const filesPage = `<!doctype html><title>Files</title>
<a id="csv" href="/files/report.csv">Export CSV</a>
<a id="pdf" href="/files/report.pdf">Export PDF</a>
<a id="csv-in-tab" href="/files/report.csv" target="_blank">Export CSV in a new tab</a>
<a id="large" href="/files/large.bin">Large file</a>
<a id="page" href="/files/upload">A page, not a file</a>
<a id="private" href="/files/private/report.csv">Private CSV</a>
<a id="customers" href="/files/customers.csv">Customers</a>`;

const uploadPage = `<!doctype html><title>Upload</title>
<form id="upload" method="post" action="/files/upload" enctype="multipart/form-data">
  <input id="file" name="file" type="file">
  <button id="send" type="submit">Send</button>
</form>`;

function signedIn(request: IncomingMessage): boolean {
  const cookies = (request.headers.cookie ?? "").split(/;\s*/);
  return cookies.includes(`${SESSION_COOKIE}=${SESSION_VALUE}`);
}

/** Handlers by path, beside the fixture's plain pages. */
export const FILE_ROUTES: Record<string, Route> = {
  "/files": (_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(filesPage);
  },
  "/files/report.csv": (_request, response) => {
    response
      .writeHead(200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": attachment("report.csv"),
      })
      .end(REPORT_CSV);
  },
  "/files/customers.csv": (_request, response) => {
    response
      .writeHead(200, {
        "content-type": "text/csv",
        "content-disposition": attachment("customers.csv"),
      })
      .end(CUSTOMERS_CSV);
  },
  "/files/report.pdf": (_request, response) => {
    response
      .writeHead(200, {
        "content-type": "application/pdf",
        "content-disposition": attachment("Q3 report.pdf"),
      })
      .end(REPORT_PDF);
  },
  // Sent over about a second, with no length announced, so only measuring it can stop it.
  "/files/large.bin": (_request, response) => {
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-disposition": attachment("large.bin"),
    });
    const chunk = Buffer.alloc(LARGE_BYTES / 16, 7);
    let sent = 0;
    const timer = setInterval(() => {
      if (response.destroyed || sent === 16) {
        clearInterval(timer);
        response.end();
        return;
      }
      response.write(chunk);
      sent += 1;
    }, 60);
    response.on("close", () => clearInterval(timer));
  },
  // Signs in: the session cookie is HttpOnly, so only the browser (never the page's script)
  // holds it.
  "/files/login": (_request, response) => {
    response
      .writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "set-cookie": `${SESSION_COOKIE}=${SESSION_VALUE}; Path=/files; HttpOnly; SameSite=Lax`,
      })
      .end('<!doctype html><title>Signed in</title><h1 id="welcome">Signed in</h1>');
  },
  "/files/private/report.csv": (request, response) => {
    if (!signedIn(request)) {
      response.writeHead(401, { "content-type": "text/plain" }).end("sign in first");
      return;
    }
    response
      .writeHead(200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": attachment("private.csv"),
      })
      .end(REPORT_CSV);
  },
  // A redirect to the private file, as many export links are.
  "/files/private/latest": (_request, response) => {
    response.writeHead(302, { location: "/files/private/report.csv" }).end();
  },
  // Sends the request on to where `to` says: a redirect the network policy may refuse.
  "/files/go": (request, response) => {
    const to = new URL(request.url ?? "/", "http://x").searchParams.get("to") ?? "/";
    response.writeHead(302, { location: to }).end();
  },
  "/files/upload": async (request, response) => {
    if (request.method !== "POST") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(uploadPage);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const part = firstFilePart(request.headers["content-type"] ?? "", Buffer.concat(chunks));
    const body =
      part === undefined
        ? '<p id="error">no file received</p>'
        : `<dl id="received"><dt>name</dt><dd id="name">${escapeHtml(part.name)}</dd>
<dt>type</dt><dd id="type">${escapeHtml(part.type)}</dd>
<dt>bytes</dt><dd id="bytes">${part.bytes.length}</dd>
<dt>sha256</dt><dd id="sha256">${sha256(part.bytes)}</dd></dl>`;
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>Received</title>${body}`);
  },
};

/** The first part of a multipart/form-data body that carries a file: enough for one file field. */
function firstFilePart(
  contentType: string,
  body: Buffer,
): { name: string; type: string; bytes: Buffer } | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (boundary === null) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const headersStart = start + delimiter.length + 2;
    const headersEnd = body.indexOf("\r\n\r\n", headersStart);
    const next = body.indexOf(delimiter, headersEnd);
    if (headersEnd === -1 || next === -1) return undefined;
    const headers = body.subarray(headersStart, headersEnd).toString("utf8");
    const name = /filename="([^"]*)"/.exec(headers)?.[1];
    if (name !== undefined) {
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? "";
      // The part's bytes end before the CRLF that precedes the next delimiter.
      return { name, type, bytes: body.subarray(headersEnd + 4, next - 2) };
    }
    start = next;
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
}
