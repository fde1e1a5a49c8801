import type { Response, Router } from "express";
import { BACKOFFICE, escapeHtml, sendErrorPage, sendPage } from "./backoffice-html.js";
import {
  formatAmount,
  INVOICE_COUNT,
  INVOICES,
  type Invoice,
  invoicesCsv,
  invoicesOnPage,
  PAGE_COUNT,
  pageOfIndex,
} from "./backoffice-invoice-data.js";

const TOTAL_CENTS = INVOICES.reduce((sum, invoice) => sum + invoice.amountCents, 0);

/** GET /invoices?page=N, /invoices/export.csv and /invoices/:number; behind requireSession. */
export function invoiceRoutes(router: Router): void {
  router.get("/invoices", (req, res) => {
    const page = pageNumberOf(req.query.page);
    if (page === "malformed") {
      sendErrorPage(
        res,
        400,
        "Bad page number",
        `The page must be a whole number from 1 to ${PAGE_COUNT}.`,
        true,
      );
      return;
    }
    if (page > PAGE_COUNT) {
      sendErrorPage(
        res,
        404,
        "No such page",
        `There are ${PAGE_COUNT} pages of invoices, numbered from 1.`,
        true,
      );
      return;
    }
    sendInvoicePage(res, page);
  });

  // Before /invoices/:number, which would otherwise take "export.csv" for an invoice number.
  router.get("/invoices/export.csv", (_req, res) => {
    // Written out rather than by res.attachment(), which leaves a plain name unquoted.
    res
      .type("text/csv; charset=utf-8")
      .set("Content-Disposition", 'attachment; filename="invoices.csv"')
      .send(invoicesCsv());
  });

  router.get("/invoices/:number", (req, res) => {
    const index = INVOICES.findIndex((invoice) => invoice.number === req.params.number);
    const invoice = INVOICES[index];
    if (invoice === undefined) {
      sendErrorPage(res, 404, "No such invoice", "There is no invoice with that number.", true);
      return;
    }
    sendInvoiceDetail(res, invoice, pageOfIndex(index));
  });
}

/**
 * The page asked for: 1 when absent, "malformed" unless it is one positive whole number in
 * plain digits (text, signs, decimals, exponents, a repeated parameter). A well-formed number
 * may still be past the last page (even Infinity): that is the caller's 404.
 */
export function pageNumberOf(value: unknown): number | "malformed" {
  if (value === undefined) return 1;
  if (typeof value !== "string" || !/^[1-9][0-9]*$/.test(value)) return "malformed";
  return Number(value);
}

function pageLink(page: number): string {
  return `${BACKOFFICE}/invoices?page=${page}`;
}

function sendInvoicePage(res: Response, page: number): void {
  const rows = invoicesOnPage(page)
    .map(
      (invoice) => `    <tr>
      <td class="number"><a href="${BACKOFFICE}/invoices/${invoice.number}">${invoice.number}</a></td>
      <td class="customer">${escapeHtml(invoice.customer)}</td>
      <td class="amount">${formatAmount(invoice.amountCents)}</td>
      <td class="date">${invoice.date}</td>
    </tr>`,
    )
    .join("\n");
  // Each link only where its page exists: a skill reads "no a[rel=next]" as "last page".
  const prev = page > 1 ? `<a rel="prev" href="${pageLink(page - 1)}">Previous</a>` : "";
  const next = page < PAGE_COUNT ? `<a rel="next" href="${pageLink(page + 1)}">Next</a>` : "";
  sendPage(res, 200, {
    title: `Invoices, page ${page}`,
    signedIn: true,
    body: `<h1>Invoices</h1>
<p id="summary">${INVOICE_COUNT} invoices, ${formatAmount(TOTAL_CENTS)} in total.
  <a id="export" href="${BACKOFFICE}/invoices/export.csv">Export all as CSV</a></p>
<table id="invoices">
  <thead>
    <tr><th>Number</th><th>Customer</th><th>Amount</th><th>Date</th></tr>
  </thead>
  <tbody>
${rows}
  </tbody>
</table>
<nav class="pagination">
  ${prev}
  <span id="page-number">Page ${page} of ${PAGE_COUNT}</span>
  ${next}
</nav>`,
  });
}

function sendInvoiceDetail(res: Response, invoice: Invoice, page: number): void {
  sendPage(res, 200, {
    title: `Invoice ${invoice.number}`,
    signedIn: true,
    body: `<h1>Invoice ${invoice.number}</h1>
<dl id="invoice">
  <dt>Number</dt><dd class="number">${invoice.number}</dd>
  <dt>Customer</dt><dd class="customer">${escapeHtml(invoice.customer)}</dd>
  <dt>Amount</dt><dd class="amount">${formatAmount(invoice.amountCents)}</dd>
  <dt>Date</dt><dd class="date">${invoice.date}</dd>
</dl>
<p><a id="back" href="${pageLink(page)}">Back to page ${page}</a></p>`,
  });
}
