/** The telecom domain (upstream `tau2/domains/telecom`): agent tools, the user's phone, sync. */
import type { Tau2DomainSpec } from "../environment.js";
import { syncTelecom, telecomToolkit } from "./telecom.js";
import { TelecomDBType } from "./telecom-model.js";
import { telecomUserToolkit } from "./telecom-user.js";
import { TelecomUserDBType } from "./telecom-user-model.js";

export const telecomDomain: Tau2DomainSpec = {
  name: "telecom",
  dbType: TelecomDBType,
  userDbType: TelecomUserDBType,
  toolkit: telecomToolkit,
  userToolkit: telecomUserToolkit,
  sync: syncTelecom,
};
