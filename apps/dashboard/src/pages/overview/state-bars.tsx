import type { components } from "@skillrun/client";
import { stateText } from "../../components/run-state.js";

type ByState = components["schemas"]["RunSummary"]["by_state"];

/** The states in the order a person reads them, each with the colour its badge has. */
const BARS: { state: keyof ByState; colour: string }[] = [
  { state: "queued", colour: "#5b5f66" },
  { state: "play", colour: "#1f56c7" },
  { state: "pause", colour: "#9a5b00" },
  { state: "finish", colour: "#18794e" },
  { state: "reset", colour: "#b42318" },
  { state: "cancel", colour: "#5b5f66" },
  { state: "timeout", colour: "#b42318" },
];

const ROW = 28;
const LABEL = 110;
const WIDTH = 520;
const COUNT = 56;

/**
 * Runs by state as a horizontal bar chart, drawn as SVG (no chart library: seven bars). The chart
 * is a picture for the eye; the same figures are in the table beside it for everyone, so the SVG
 * is hidden from screen readers. Its size is fixed, so nothing moves when the figures arrive.
 */
export function StateBars(props: { byState: ByState | undefined }) {
  const most = Math.max(1, ...BARS.map(({ state }) => props.byState?.[state] ?? 0));
  const room = WIDTH - LABEL - COUNT;
  return (
    <svg
      className="state-bars"
      viewBox={`0 0 ${WIDTH} ${BARS.length * ROW}`}
      width={WIDTH}
      height={BARS.length * ROW}
      aria-hidden="true"
      focusable="false"
    >
      {BARS.map(({ state, colour }, i) => {
        const runs = props.byState?.[state] ?? 0;
        const y = i * ROW;
        return (
          <g key={state} data-state={state}>
            <text x={0} y={y + ROW / 2 + 5} fontSize="14" fill="#1c1d1f">
              {stateText(state)}
            </text>
            <rect
              x={LABEL}
              y={y + 5}
              height={ROW - 10}
              width={props.byState ? Math.round((runs / most) * room) : 0}
              fill={colour}
              rx="3"
            />
            <text
              x={LABEL + (props.byState ? Math.round((runs / most) * room) : 0) + 6}
              y={y + ROW / 2 + 5}
              fontSize="14"
              fill="#1c1d1f"
            >
              {props.byState ? runs : ""}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
