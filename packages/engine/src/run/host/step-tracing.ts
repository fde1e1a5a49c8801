import type { OtlpTarget, OtlpTracer } from "../../tracing/otlp-tracer.js";
import type { SecretMask } from "../secret-mask.js";
import type { StepRef, StepSpan } from "../types.js";

/** A traced run's job: the run's span (the parent of its steps') and where spans go. */
export interface JobTrace {
  /** The W3C traceparent of the run's span, which the worker started. */
  traceparent: string;
  otlp: OtlpTarget;
}

/** How long a run's end waits for its steps' spans to be sent before it is reported. */
const FLUSH_WITHIN_MS = 2000;

// One tracer per run process, made by the first traced run and kept for the next ones.
let tracer:
  | Promise<{ tracer: OtlpTracer; module: typeof import("../../tracing/otlp-tracer.js") }>
  | undefined;

/**
 * The step spans of a traced run (ExecuteSkillOptions.traceStep): each attempt a child of the
 * run's span, named by its label, with `skillrun.run_id` and `skillrun.step`; a failed one holds
 * its masked error. OpenTelemetry is loaded here, on the first traced run only.
 */
export async function stepTracing(
  trace: JobTrace,
  runId: string,
  masker: SecretMask,
): Promise<{ traceStep(step: StepRef, attempt: number): StepSpan; flush(): Promise<void> }> {
  tracer ??= import("../../tracing/otlp-tracer.js").then((module) => ({
    tracer: new module.OtlpTracer(trace.otlp),
    module,
  }));
  const { tracer: own, module } = await tracer;
  return {
    traceStep(step, attempt) {
      const span = own.start(`step ${masker.maskText(step.label)}`, {
        parent: trace.traceparent,
        attributes: {
          "skillrun.run_id": runId,
          "skillrun.step": masker.maskText(step.label),
          "skillrun.step.kind": step.kind,
          "skillrun.step.attempt": attempt,
        },
      });
      return {
        traceparent: module.traceparentOf(span),
        end: (error) => module.endSpan(span, error === undefined ? error : masker.maskText(error)),
      };
    },
    // A collector that does not answer delays the run's end by FLUSH_WITHIN_MS at most.
    flush: () =>
      Promise.race([
        own.flush().catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, FLUSH_WITHIN_MS).unref()),
      ]),
  };
}
