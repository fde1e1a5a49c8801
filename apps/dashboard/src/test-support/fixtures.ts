import type { Input, RunEvent, RunSession, Skill } from "@skillrun/client";

/** A run event as the API sends one; `overrides` say what the test is about. */
export function runEvent(overrides: Partial<RunEvent> & Pick<RunEvent, "id" | "type">): RunEvent {
  return {
    run_id: "run_1",
    at: "2026-01-01T00:00:00Z",
    step: null,
    attempt: null,
    duration_ms: null,
    level: null,
    message: null,
    data: null,
    video_offset_ms: null,
    ...overrides,
  };
}

/** The step a step event names: its label, and its kind ("wait" unless given). */
export function step(label: string, kind = "wait"): RunEvent["step"] {
  return { index: 0, id: null, kind, label };
}

/** A run as `GET /v1/run/{id}` gives one. */
export function runSession(overrides: Partial<RunSession> = {}): RunSession {
  return {
    id: "run_1",
    skill_id: "skill_sum",
    owner: "demo",
    name: "Add two numbers",
    created_at: "2026-01-01T00:00:00Z",
    environment: null,
    start_time: "2026-01-01T00:00:00Z",
    end_time: null,
    state: "play",
    inputs: {},
    data: {},
    video_url: null,
    ...overrides,
  };
}

/** A declared input of a skill. */
export function input(overrides: Partial<Input> & Pick<Input, "json_key" | "data_type">): Input {
  return { id: `input_${overrides.json_key}`, required: true, ...overrides };
}

/** A skill as `GET /v1/skill/{id}` gives one. */
export function skill(overrides: Partial<Skill> = {}): Skill {
  return {
    id: "skill_sum",
    name: "Add two numbers",
    owner: "demo",
    created_at: "2026-01-01T00:00:00Z",
    last_modified_at: null,
    description: null,
    inputs: [],
    ...overrides,
  };
}
