import type { components } from "@skillrun/contract";

/** The contract's shapes, as the server sends them. */
export type RunSession = components["schemas"]["RunSession"];
export type Skill = components["schemas"]["Skill"];
export type Input = components["schemas"]["Input"];
export type DataType = components["schemas"]["VariableDataType"];
/** A run's state; null (not part of the enum) means queued. */
export type RunState = components["schemas"]["RunSessionState"];
export type RunEvent = components["schemas"]["RunEvent"];
export type RunEventType = components["schemas"]["RunEventType"];
export type SecretInfo = components["schemas"]["SecretInfo"];
export type Profile = components["schemas"]["Profile"];
export type Webhook = components["schemas"]["Webhook"];
export type WebhookCreated = components["schemas"]["WebhookCreated"];
export type WebhookEvent = components["schemas"]["WebhookEvent"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];
export type Schedule = components["schemas"]["Schedule"];
export type ScheduleTick = components["schemas"]["ScheduleTick"];
export type ScheduleOverlap = components["schemas"]["ScheduleOverlap"];
