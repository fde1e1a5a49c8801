// Fixture pages for dialogs, tabs, frames and the smaller actions (hover, check, scroll).

/** Colours of the opener and its popup, told apart in the video's frames. */
export const OPENER_COLOUR = [255, 255, 255] as const;
export const POPUP_COLOUR = [220, 30, 30] as const;

export const INTERACTION_PAGES: Record<string, string> = {
  // Each button opens a dialog and shows what it answered.
  "/dialogs": `<!doctype html><title>Dialogs</title>
<button id="archive">Archive</button>
<button id="name">Name</button>
<button id="notice">Notice</button>
<p id="status">Pending</p>
<script>
  const status = document.getElementById("status");
  document.getElementById("archive").addEventListener("click", () => {
    status.textContent = confirm("Archive invoice 7?") ? "Archived" : "Kept";
  });
  document.getElementById("name").addEventListener("click", () => {
    const name = prompt("Your name?", "Ada");
    status.textContent = name === null ? "No name" : "Hello " + name;
  });
  document.getElementById("notice").addEventListener("click", () => {
    alert("Saved");
    status.textContent = "Noticed";
  });
</script>`,
  // Asks before being left, once clicked (browsers ask only after a person used the page).
  "/leave": `<!doctype html><title>Leave</title><button id="edit">Edit</button>
<script>
  document.getElementById("edit").addEventListener("click", () => {
    addEventListener("beforeunload", (event) => { event.preventDefault(); event.returnValue = ""; });
  });
</script>`,
  "/opener": `<!doctype html><title>Opener</title>
<style>body { background: rgb(${OPENER_COLOUR.join(",")}); margin: 0; height: 100vh; }</style>
<a id="link" href="/popup" target="_blank">Open in a new tab</a>
<button id="window">Open a window</button>
<p id="status">Waiting</p>
<script>
  document.getElementById("window").addEventListener("click", () => window.open("/popup"));
</script>`,
  "/popup": `<!doctype html><title>Popup</title>
<style>body { background: rgb(${POPUP_COLOUR.join(",")}); margin: 0; height: 100vh; }</style>
<h1 id="title">Popup</h1>
<button id="done">Done</button>
<script>
  document.getElementById("done").addEventListener("click", () => {
    window.opener.document.getElementById("status").textContent = "Done in the popup";
  });
</script>`,
  "/frames": `<!doctype html><title>Frames</title>
<h1 id="title">Checkout</h1>
<iframe id="checkout" src="/frame-form" width="600" height="300"></iframe>`,
  "/frame-form": `<!doctype html><title>Payment</title>
<form id="pay-form">
  <input id="card" name="card">
  <select id="currency"><option value="eur">EUR</option><option value="usd">USD</option></select>
  <label><input id="save" type="checkbox"> Save the card</label>
  <button id="pay" type="submit">Pay</button>
</form>
<p id="title">Pay here</p>
<script>
  document.getElementById("pay-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const result = document.createElement("p");
    result.id = "paid";
    result.textContent = "Paid in " + document.getElementById("currency").value + " with " +
      document.getElementById("card").value +
      (document.getElementById("save").checked ? " (saved)" : "");
    document.body.append(result);
  });
</script>`,
  "/widgets": `<!doctype html><title>Widgets</title>
<span id="help">?</span> <span id="tip">Hover for help</span>
<label><input id="terms" type="checkbox"> I agree</label>
<label><input id="news" type="checkbox" checked> Send news</label>
<p id="choices"></p>
<div style="height: 3000px"></div>
<p id="far">Far below</p>
<div id="sentinel" style="height: 10px"></div>
<ul id="feed"></ul>
<script>
  document.getElementById("help").addEventListener("mouseenter", () => {
    document.getElementById("tip").textContent = "Help is on its way";
  });
  const choices = () => {
    document.getElementById("choices").textContent =
      "terms " + document.getElementById("terms").checked +
      ", news " + document.getElementById("news").checked;
  };
  for (const id of ["terms", "news"]) document.getElementById(id).addEventListener("change", choices);
  choices();
  // More of the feed loads once the end of the page is in view, as on an endless list.
  new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    const item = document.createElement("li");
    item.className = "loaded";
    item.textContent = "Loaded item";
    document.getElementById("feed").append(item);
  }).observe(document.getElementById("sentinel"));
</script>`,
};
