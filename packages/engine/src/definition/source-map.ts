import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  Scalar,
} from "yaml";
import type { PathSegment } from "./problem.js";

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** A place inside a string value: `index` into the value, read from `source` (the YAML text). */
export interface WithinValue {
  source: string;
  index: number;
}

/**
 * Where a path points in the YAML source: at the key itself for `at: "key"`, else at the value
 * (at the key when the value is empty). A path that leaves the document stops at the last node
 * it reached. With `within`, a place inside a string value, when the string is written on one
 * line without escapes (else its start).
 */
export function positionOf(
  document: Document,
  lineCounter: LineCounter,
  path: readonly PathSegment[],
  at: "key" | "value",
  within?: WithinValue,
): SourcePosition {
  let node = resolved(document, document.contents);
  let key: Node | null = null;
  let reached = 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (pair === undefined) break;
      key = isNodeLike(pair.key) ? pair.key : null;
      node = isNodeLike(pair.value) ? pair.value : null;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      key = null;
      node = isNodeLike(item) ? item : null;
    } else {
      break;
    }
    reached += 1;
    // Descend through aliases, but report the alias itself when it is the target.
    if (reached < path.length) node = resolved(document, node);
  }
  const wholePath = reached === path.length;
  const target = (wholePath && (at === "key" || isEmpty(node)) && key !== null ? key : node) ?? key;
  const start = target?.range?.[0] ?? 0;
  const inside = wholePath && at === "value" && within !== undefined;
  const offset = inside ? (offsetWithin(target, within) ?? start) : start;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/**
 * Where `index` of a scalar's string lies in the source, when the source holds the string as it
 * is (plain or quoted, on one line, no escapes); otherwise quotes, escapes and folding move it.
 */
function offsetWithin(node: Node | null, { source, index }: WithinValue): number | undefined {
  if (!isScalar(node) || typeof node.value !== "string" || !node.range) return;
  const [start, end] = node.range;
  const written = source.slice(start, end);
  const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
  if (node.type !== Scalar.PLAIN && !quoted) return;
  const text = quoted ? written.slice(1, -1) : written;
  if (text !== node.value || index > text.length) return;
  return start + (quoted ? 1 : 0) + index;
}

function resolved(document: Document, node: unknown): Node | null {
  if (isAlias(node)) return node.resolve(document) ?? null;
  return isNodeLike(node) ? node : null;
}

function isNodeLike(value: unknown): value is Node {
  return isMap(value) || isSeq(value) || isScalar(value) || isAlias(value);
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** A value left out in the source (`url:`), which yaml still gives a zero-width node. */
function isEmpty(node: Node | null): boolean {
  return node === null || (node.range !== undefined && node.range?.[0] === node.range?.[1]);
}
