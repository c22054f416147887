import type { Tau2Message } from "./types.js";

export interface CommunicateCheck {
  info: string;
  met: boolean;
}

/**
 * Upstream's check: `info.lower() in content.lower().replace(",", "")` over the agent's messages
 * that have text (commas are dropped from the message only, so "1,000" matches "1000").
 */
export function checkCommunicate(
  trajectory: readonly Tau2Message[],
  infos: readonly string[],
): CommunicateCheck[] {
  const texts = trajectory
    .filter((m) => m.role === "assistant" && m.content.trim().length > 0)
    .map((m) => m.content.toLowerCase().replace(/,/g, ""));
  return infos.map((info) => ({ info, met: texts.some((t) => t.includes(info.toLowerCase())) }));
}
