import { BANK } from "./bank.js";
import { CALENDAR } from "./calendar.js";
import { LIBRARY } from "./library.js";
import { SHOP } from "./shop.js";
import type { DomainSpec } from "../types.js";

/** Training domains first, then the held-out one. */
export const DOMAIN_SPECS: readonly DomainSpec[] = [SHOP, BANK, CALENDAR, LIBRARY];
