/**
 * The back office's invoices: a fixed data set, computed rather than random, so that tests and
 * the example skills can check counts and totals (docs/skills.md lists the figures).
 */

export interface Invoice {
  /** INV-1001 … INV-1047 */
  number: string;
  customer: string;
  /** In cents, to add up without rounding. */
  amountCents: number;
  /** YYYY-MM-DD */
  date: string;
}

export const INVOICE_COUNT = 47;
export const INVOICES_PER_PAGE = 10;

// A comma, an ampersand, quotes and a non-ASCII letter: what CSV quoting and HTML escaping must
// get right.
const CUSTOMERS = [
  "Acme Tools",
  "Blue Harbour Ltd",
  "Smith, Jones & Co",
  'Café "Le Coin"',
  "Northwind Traders",
  "Kestrel Logistics",
  "Orchard & Vine",
];

const FIRST_DATE = Date.UTC(2024, 0, 3);
const DAY_MS = 24 * 60 * 60 * 1000;

function invoiceAt(index: number): Invoice {
  const n = index + 1;
  return {
    number: `INV-${1000 + n}`,
    customer: CUSTOMERS[index % CUSTOMERS.length] as string,
    // From 25.00 to 474.99, some under 100 and most over.
    amountCents: 2500 + ((n * 7307) % 45000),
    date: new Date(FIRST_DATE + index * 7 * DAY_MS).toISOString().slice(0, 10),
  };
}

/** Every invoice, oldest first (also the table's order). */
export const INVOICES: readonly Invoice[] = Array.from({ length: INVOICE_COUNT }, (_, i) =>
  invoiceAt(i),
);

export const PAGE_COUNT = Math.ceil(INVOICE_COUNT / INVOICES_PER_PAGE);

/** "123.45" */
export function formatAmount(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The invoices on page `page` (1-based, within 1…PAGE_COUNT). */
export function invoicesOnPage(page: number): readonly Invoice[] {
  return INVOICES.slice((page - 1) * INVOICES_PER_PAGE, page * INVOICES_PER_PAGE);
}

/** The page that lists the invoice at `index`. */
export function pageOfIndex(index: number): number {
  return Math.floor(index / INVOICES_PER_PAGE) + 1;
}

/** Every invoice as CSV (RFC 4180: a header line, CRLF line ends, quoted where needed). */
export function invoicesCsv(): string {
  const lines = [
    "number,customer,amount,date",
    ...INVOICES.map((invoice) =>
      [invoice.number, invoice.customer, formatAmount(invoice.amountCents), invoice.date]
        .map(csvField)
        .join(","),
    ),
  ];
  return lines.map((line) => `${line}\r\n`).join("");
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
