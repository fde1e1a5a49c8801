import type { IncomingMessage, ServerResponse } from "node:http";
import { TOTP } from "otpauth";

/** The one-time-code key of the fixture site's second factor (base32). */
export const FIXTURE_TOTP_KEY = "KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF";

const page = `<!doctype html><title>Second factor</title>
<form id="factor"><input id="code" inputmode="numeric" autocomplete="one-time-code">
<button id="verify" type="submit">Verify</button></form><p id="result">Enter the code</p>
<script>
document.getElementById("factor").addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = document.getElementById("code").value;
  const answer = await fetch("/second-factor/check?code=" + encodeURIComponent(code));
  document.getElementById("result").textContent = await answer.text();
});
</script>`;

type Route = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A second factor as sites ask for it: a code from an authenticator app, checked by the server
 * against FIXTURE_TOTP_KEY (the current period or the one before, as sites allow for clocks).
 */
export const ONE_TIME_CODE_ROUTES: Record<string, Route> = {
  "/second-factor": (_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  },
  "/second-factor/check": (request, response) => {
    const code = new URL(request.url ?? "/", "http://fixture").searchParams.get("code") ?? "";
    const delta = new TOTP({ secret: FIXTURE_TOTP_KEY }).validate({ token: code, window: 1 });
    response
      .writeHead(200, { "content-type": "text/plain; charset=utf-8" })
      .end(delta === null ? "Wrong code" : "Signed in");
  },
};
