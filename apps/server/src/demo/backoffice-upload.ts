import type { Response, Router } from "express";
import multer from "multer";
import { BACKOFFICE, escapeHtml, sendErrorPage, sendPage } from "./backoffice-html.js";

/** The largest file the upload form takes: 1 MiB. */
export const UPLOAD_LIMIT_BYTES = 1024 * 1024;

// multer (busboy underneath) is the multipart parser express-openapi-validator already brings.
// The file is kept in memory: one at most per request, at most UPLOAD_LIMIT_BYTES. Past a limit
// multer reads the rest of the body before failing, so the browser sees the 413 page rather
// than a reset connection.
const receiveFile = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
  // Browsers send file names as UTF-8 without saying so; busboy would read them as Latin-1.
  defParamCharset: "utf8",
}).single("file");

/** GET/POST /upload; behind requireSession, so nothing is parsed for a stranger. */
export function uploadRoutes(router: Router): void {
  router.get("/upload", (_req, res) => {
    sendUploadPage(res, null);
  });

  router.post("/upload", (req, res) => {
    receiveFile(req, res, (error: unknown) => {
      if (error instanceof multer.MulterError && error.code === "LIMIT_FILE_SIZE") {
        sendErrorPage(
          res,
          413,
          "File too large",
          `The file is larger than the limit of ${UPLOAD_LIMIT_BYTES} bytes (1 MiB).`,
          true,
        );
        return;
      }
      if (error !== undefined) {
        // Every other failure here is the request's: a malformed body, another field's file,
        // too many parts.
        const reason = error instanceof Error ? error.message : String(error);
        sendErrorPage(res, 400, "Upload refused", `The upload could not be read: ${reason}.`, true);
        return;
      }
      const file = req.file;
      if (file === undefined || (file.originalname === "" && file.size === 0)) {
        sendErrorPage(res, 400, "No file", "Choose a file to upload.", true);
        return;
      }
      sendUploadPage(res, {
        name: file.originalname,
        size: file.size,
        lines: lineCount(file.buffer),
      });
    });
  });
}

/** Lines in the file: each "\n" ends one, and a last line without one counts too. */
export function lineCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 0x0a) count += 1;
  const last = bytes.at(-1);
  return last === undefined || last === 0x0a ? count : count + 1;
}

interface Received {
  name: string;
  size: number;
  lines: number;
}

function sendUploadPage(res: Response, received: Received | null): void {
  const result =
    received === null
      ? ""
      : `<section id="upload-result">
  <h2>Received</h2>
  <p><span class="file-name">${escapeHtml(received.name)}</span>:
    <span class="file-size">${received.size}</span> bytes,
    <span class="line-count">${received.lines}</span> lines.</p>
</section>`;
  sendPage(res, 200, {
    title: "Upload",
    signedIn: true,
    body: `<h1>Upload a file</h1>
<p>Up to 1 MiB; the page answers with the file's name, size and line count.</p>
${result}
<form id="upload" method="post" action="${BACKOFFICE}/upload" enctype="multipart/form-data">
  <label>File <input id="file" name="file" type="file"></label>
  <button type="submit">Upload</button>
</form>`,
  });
}
