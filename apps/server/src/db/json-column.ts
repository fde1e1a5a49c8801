/** JSON documents are stored as text (see prisma/models.prisma); these convert both ways. */
export function toJsonColumn(value: unknown): string {
  return JSON.stringify(value);
}

export function fromJsonColumn<T>(text: string): T;
export function fromJsonColumn<T>(text: string | null): T | null;
export function fromJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
