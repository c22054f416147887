import { EnvaceError } from "../../core/errors.js";
import type { Backend } from "./backend.js";
import { GorillaFileSystem } from "./gorilla-file-system.js";
import type { LongContextData } from "./long-context.js";
import { MathAPI } from "./math-api.js";
import { MemoryKV } from "./memory-kv.js";
import { MemoryRecSum } from "./memory-rec-sum.js";
import { MemoryVector } from "./memory-vector.js";
import type { BackendServices } from "./services.js";
import { WebSearch } from "./web-search.js";
import { MessageAPI } from "./message-api.js";
import { TicketAPI } from "./ticket-api.js";
import { TradingBot } from "./trading-bot.js";
import { TravelAPI } from "./travel-api.js";
import { TwitterAPI } from "./twitter-api.js";
import { VehicleControlAPI } from "./vehicle-control.js";

/** The eight multi-turn backends by upstream class name. */
export const BACKEND_CLASSES = [
  "GorillaFileSystem",
  "MathAPI",
  "MessageAPI",
  "TwitterAPI",
  "TicketAPI",
  "TradingBot",
  "TravelAPI",
  "VehicleControlAPI",
] as const;

/** Classes with no state to load (upstream `STATELESS_CLASSES`). */
export const STATELESS_CLASSES = new Set(["MathAPI"]);

export function createBackend(
  className: string,
  longContext?: LongContextData,
  services: BackendServices = {},
): Backend {
  switch (className) {
    case "GorillaFileSystem":
      return new GorillaFileSystem(longContext);
    case "MathAPI":
      return new MathAPI();
    case "MessageAPI":
      return new MessageAPI();
    case "TwitterAPI":
      return new TwitterAPI();
    case "TicketAPI":
      return new TicketAPI();
    case "TradingBot":
      return new TradingBot(longContext);
    case "TravelAPI":
      return new TravelAPI(longContext);
    case "VehicleControlAPI":
      return new VehicleControlAPI(longContext);
    case "MemoryAPI_kv":
      return new MemoryKV();
    case "MemoryAPI_rec_sum":
      return new MemoryRecSum();
    case "MemoryAPI_vector":
      if (!services.embedder) throw needs(className, "an embedding service (--embedding-endpoint)");
      return new MemoryVector(services.embedder);
    case "WebSearchAPI":
      if (!services.webSearch) throw needs(className, "a search service (--search-endpoint)");
      return new WebSearch(services.webSearch);
    default:
      throw new EnvaceError("INVALID_CONFIG", `BFCL backend ${className} is not supported`);
  }
}

const needs = (className: string, what: string) =>
  new EnvaceError("INVALID_CONFIG", `BFCL backend ${className} needs ${what}`);
