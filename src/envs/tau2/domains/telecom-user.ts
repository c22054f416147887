/**
 * Telecom user tools (upstream `tau2/domains/telecom/user_tools.py`): what the user can do on
 * their phone when the agent asks, plus the set-up functions tasks' `initialization_actions` call
 * (`turn_data_off`, `break_apn_settings`, …) and the env assertions.
 */
import { floatRepr } from "../py-json.js";
import { PyError, pyIn, pyRepr, pyStr, pyTypeName, requireStrMethod, valueError } from "../py-errors.js";
import { pyConstruct } from "../py-model.js";
import type { Tau2State } from "../environment.js";
import { type Args, S, type ToolDef, type Toolkit } from "../toolkit.js";
import {
  apnFor,
  canSendMms,
  connectVpn,
  defaultVpnDetails,
  deviceOf,
  disconnectVpn,
  mobileDataWorking,
  simStatus,
  simulateNetworkSearch,
  speedTest,
  speedTestText,
  statusBar,
  surroundingsOf,
  toggleAirplaneMode,
  vpnDetailsRepr,
} from "./telecom-device.js";
import { APN_NAMES, type ApnV, APNSettings, defaultApn, MODE, NET, SIM } from "./telecom-user-model.js";

const withBar = (s: Tau2State, text: string) => `${text}\nStatus Bar: ${statusBar(s)}`;
const onOff = (b: boolean) => (b ? "ON" : "OFF");
const yesNo = (b: boolean) => (b ? "Yes" : "No");
const PERMISSIONS = ["sms", "storage", "phone", "network"] as const;

/** A tool without parameters. */
const simple = (
  name: string,
  description: string,
  mutates: boolean,
  run: (s: Tau2State) => string,
): ToolDef<Tau2State> => ({ name, description, params: [], mutates, run: (s) => run(s) });

function toggle(s: Tau2State, key: "data_enabled" | "roaming_enabled", search = true): boolean {
  const d = deviceOf(s);
  d[key] = !d[key];
  if (search) simulateNetworkSearch(s);
  return d[key];
}
function toggleDataSaver(s: Tau2State): boolean {
  const d = deviceOf(s);
  d.data_saver_mode = !d.data_saver_mode;
  return d.data_saver_mode;
}

function appStatus(s: Tau2State, appName: unknown) {
  const apps = deviceOf(s).app_statuses;
  return pyIn(apps, appName) ? apps.get(appName as string)! : null;
}
const grantedPermissions = (p: Record<(typeof PERMISSIONS)[number], boolean>) =>
  PERMISSIONS.filter((k) => p[k]).map((k) => k.replace(/_/g, " ").toLowerCase());

const tools: ToolDef<Tau2State>[] = [
  simple(
    "check_status_bar",
    "Shows what icons are currently visible in your phone's status bar (the area at the top of the screen). Displays network signal strength, mobile data status (enabled, disabled, data saver), Wi-Fi status, and battery level.",
    false,
    (s) => `Status Bar: ${statusBar(s)}`,
  ),
  simple(
    "check_network_status",
    "Checks your phone's connection status to cellular networks and Wi-Fi. Shows airplane mode status, signal strength, network type, whether mobile data is enabled, and whether data roaming is enabled.",
    false,
    (s) => {
      const d = deviceOf(s);
      const lines = [
        `Airplane Mode: ${onOff(d.airplane_mode)}`,
        `SIM Card Status: ${simStatus(s)}`,
        `Cellular Connection: ${d.network_connection_status}`,
        `Cellular Signal: ${String(d.network_signal_strength)}`,
        `Cellular Network Type: ${String(d.network_technology_connected)}`,
        `Mobile Data Enabled: ${yesNo(d.data_enabled)}`,
        `Data Roaming Enabled: ${yesNo(d.roaming_enabled)}`,
        `Wi-Fi Radio: ${onOff(d.wifi_enabled)}`,
        `Wi-Fi Connected: ${yesNo(d.wifi_connected)}`,
      ];
      if (d.wifi_connected) lines.push(`Connected Wi-Fi Network: ${pyStr(d.wifi_ssid)}`);
      return lines.join("\n");
    },
  ),
  simple("check_network_mode_preference", "Shows the current network mode preference.", false, (s) => {
    const mode = deviceOf(s).network_mode_preference;
    if (typeof mode !== "string")
      throw new PyError("AttributeError", `'${pyTypeName(mode)}' object has no attribute 'value'`);
    return `Network Mode Preference: ${mode}`;
  }),
  {
    name: "set_network_mode_preference",
    description:
      "Changes the type of cellular network your phone prefers to connect to (e.g., 5G, LTE/4G, 3G). Higher-speed networks (LTE/5G) provide faster data but may use more battery.",
    params: [
      { name: "mode", schema: { anyOf: [{ $ref: "#/$defs/NetworkModePreference" }, { type: "string" }] } },
    ],
    defs: {
      NetworkModePreference: {
        enum: Object.values(MODE),
        title: "NetworkModePreference",
        type: "string",
      },
    },
    mutates: true,
    run: (s, a) => {
      const mode = a.mode;
      const valid = Object.values(MODE) as string[];
      if (typeof mode === "string" && !valid.includes(mode)) {
        return withBar(
          s,
          `Failed to set network mode: '${mode}' is not a valid option. Please use one of: ${valid.join(", ")}`,
        );
      }
      deviceOf(s).network_mode_preference = mode;
      simulateNetworkSearch(s);
      // A non-string mode is stored as it is upstream, then its `.value` fails (None: refused).
      if (mode === null || mode === undefined)
        return withBar(
          s,
          `Failed to set network mode: 'None' is not a valid option. Please use one of: ${valid.join(", ")}`,
        );
      if (typeof mode !== "string")
        throw new PyError("AttributeError", `'${pyTypeName(mode)}' object has no attribute 'value'`);
      return withBar(s, `Preferred Network Mode set to: ${mode}`);
    },
  },
  simple(
    "run_speed_test",
    "Measures your current internet connection speed (download speed). Provides information about connection quality and what activities it can support.",
    false,
    speedTestText,
  ),
  simple(
    "toggle_airplane_mode",
    "Toggles Airplane Mode ON or OFF. When ON, it disconnects all wireless communications including cellular, Wi-Fi, and Bluetooth.\n\nReturns the new state of airplane_mode.",
    true,
    (s) => withBar(s, `Airplane Mode is now ${onOff(toggleAirplaneMode(s))}.`),
  ),
  simple(
    "check_sim_status",
    "Checks if your SIM card is working correctly and displays its current status. Shows if the SIM is active, missing, or locked with a PIN or PUK code.",
    false,
    (s) => {
      const status = simStatus(s);
      const text: Record<string, string> = {
        [SIM.ACTIVE]: "Your SIM card is active and working.",
        [SIM.MISSING]: "No SIM card detected in the phone.",
        [SIM.LOCKED_PIN]: "The SIM card is locked with a PIN code.",
        [SIM.LOCKED_PUK]: "The SIM card is locked with a PUK code.",
      };
      return text[status] ?? `Unknown SIM status: ${status}`;
    },
  ),
  simple(
    "reseat_sim_card",
    "Simulates removing and reinserting your SIM card. This can help resolve recognition issues.",
    true,
    (s) => {
      deviceOf(s).sim_card_missing = false;
      simulateNetworkSearch(s);
      return withBar(s, "SIM card re-seated successfully.");
    },
  ),
  simple(
    "toggle_data",
    "Toggles your phone's mobile data connection ON or OFF. Controls whether your phone can use cellular data for internet access when Wi-Fi is unavailable.\n\nReturns the new data connection status.",
    true,
    (s) => withBar(s, `Mobile Data is now ${onOff(toggle(s, "data_enabled"))}.`),
  ),
  simple(
    "toggle_roaming",
    "Toggles Data Roaming ON or OFF. When ON, your phone can use data networks in areas outside your carrier's coverage.\n\nReturns the new data roaming status.",
    true,
    (s) => withBar(s, `Data Roaming is now ${onOff(toggle(s, "roaming_enabled"))}.`),
  ),
  simple(
    "check_data_restriction_status",
    "Checks if your phone has any data-limiting features active. Shows if Data Saver mode is on.",
    false,
    (s) =>
      deviceOf(s).data_saver_mode ? "Data Saver mode is ON (limits data usage)." : "Data Saver mode is OFF.",
  ),
  simple(
    "toggle_data_saver_mode",
    "Toggles Data Saver mode ON or OFF. When ON, it reduces data usage, which may affect data speed.\n\nReturns the new data saver mode status.",
    true,
    (s) => withBar(s, `Data Saver Mode is now ${onOff(toggleDataSaver(s))}.`),
  ),
  simple(
    "check_apn_settings",
    "Checks the technical APN settings your phone uses to connect to your carrier's mobile data network. Shows current APN name and MMSC URL for picture messaging.",
    false,
    (s) => {
      const apn = apnFor(deviceOf(s), "model_copy");
      return `Current APN Name: ${apn.apn_name || "Not Set"}\nMMSC URL (for picture messages): ${apn.mmsc_url || "Not Set"}\n(These are technical settings, usually best left unchanged.)`;
    },
  ),
  {
    name: "set_apn_settings",
    description: "Sets the APN settings for the phone.",
    params: [
      {
        name: "apn_settings",
        schema: { anyOf: [{ $ref: "#/$defs/APNSettings" }, { additionalProperties: true, type: "object" }] },
      },
    ],
    defs: {
      APNNames: { enum: Object.values(APN_NAMES), title: "APNNames", type: "string" },
      APNSettings: apnSchema(),
    },
    mutates: true,
    run: (s, a) => {
      const raw = a.apn_settings;
      const isDict = raw !== null && typeof raw === "object" && !Array.isArray(raw);
      const apn = isDict ? pyConstruct<ApnV>(APNSettings, raw) : raw;
      deviceOf(s).active_apn_settings = apn as ApnV;
      if (!isDict)
        throw new PyError("AttributeError", `'${pyTypeName(raw)}' object has no attribute 'apn_name'`);
      simulateNetworkSearch(s);
      return withBar(s, `APN settings set to: ${(apn as ApnV).apn_name}`);
    },
  },
  simple("reset_apn_settings", "Resets your APN settings to the default settings.", true, (s) => {
    apnFor(deviceOf(s), "reset_at_reboot").reset_at_reboot = true;
    simulateNetworkSearch(s);
    return withBar(s, "APN settings will reset at reboot.");
  }),
  simple(
    "check_wifi_status",
    "Checks your Wi-Fi connection status. Shows if Wi-Fi is turned on, which network you're connected to (if any), and the signal strength.",
    false,
    (s) => {
      const d = deviceOf(s);
      if (!d.wifi_enabled) return "Wi-Fi is turned OFF.";
      if (d.wifi_connected)
        return `Wi-Fi is ON and connected to '${pyStr(d.wifi_ssid)}'. Signal strength: ${d.wifi_signal_strength}.`;
      return "Wi-Fi is ON but not connected to any network.";
    },
  ),
  simple(
    "toggle_wifi",
    "Toggles your phone's Wi-Fi radio ON or OFF. Controls whether your phone can discover and connect to wireless networks for internet access.\n\nReturns the new Wi-Fi status.",
    true,
    (s) => {
      const d = deviceOf(s);
      if (d.airplane_mode) return withBar(s, "Cannot change Wi-Fi settings while Airplane Mode is ON.");
      d.wifi_enabled = !d.wifi_enabled;
      if (!d.wifi_enabled) {
        d.wifi_connected = false;
        d.wifi_ssid = null;
        d.wifi_signal_strength = "none";
      }
      return withBar(s, `Wi-Fi is now ${onOff(d.wifi_enabled)}.`);
    },
  ),
  simple(
    "check_wifi_calling_status",
    "Checks if Wi-Fi Calling is enabled on your device. This feature allows you to make and receive calls over a Wi-Fi network instead of using the cellular network.",
    false,
    (s) => `Wi-Fi Calling is currently turned ${onOff(deviceOf(s).wifi_calling_enabled)}.`,
  ),
  simple(
    "toggle_wifi_calling",
    "Toggles Wi-Fi Calling ON or OFF. This feature allows you to make and receive calls over Wi-Fi instead of the cellular network, which can help in areas with weak cellular signal.\n\nReturns the new Wi-Fi Calling status.",
    true,
    (s) => {
      const d = deviceOf(s);
      d.wifi_calling_enabled = !d.wifi_calling_enabled;
      return withBar(s, `Wi-Fi Calling is now ${onOff(d.wifi_calling_enabled)}.`);
    },
  ),
  simple(
    "check_vpn_status",
    "Checks if you're using a VPN (Virtual Private Network) connection. Shows if a VPN is active, connected, and displays any available connection details.",
    false,
    (s) => {
      const d = deviceOf(s);
      if (d.vpn_connected) {
        return d.vpn_details
          ? `VPN is ON and connected. Details: ${vpnDetailsRepr(d.vpn_details)}`
          : "VPN is ON and connected (no specific details available).";
      }
      return d.vpn_enabled_setting
        ? "VPN is turned ON in settings, but currently not connected."
        : "VPN is turned OFF.";
    },
  ),
  simple("connect_vpn", "Connects to your VPN (Virtual Private Network).", true, (s) => {
    if (connectVpn(s) === null) return "VPN already connected.";
    return withBar(s, "VPN connected successfully.");
  }),
  simple(
    "disconnect_vpn",
    "Disconnects any active VPN (Virtual Private Network) connection. Stops routing your internet traffic through a VPN server, which might affect connection speed or access to content.",
    true,
    (s) =>
      withBar(
        s,
        disconnectVpn(s) ? "VPN disconnected successfully." : "No active VPN connection to disconnect.",
      ),
  ),
  simple(
    "check_installed_apps",
    "Returns the name of all installed apps on the phone.",
    false,
    (s) =>
      `The following apps are installed on the phone: ${[...deviceOf(s).app_statuses.keys()].join(", ")}`,
  ),
  {
    name: "check_app_status",
    description:
      "Checks detailed information about a specific app. Shows its permissions and background data usage settings.",
    params: [{ name: "app_name", schema: S.str }],
    mutates: false,
    run: (s, a) => {
      const app = appStatus(s, a.app_name);
      if (!app) return `App '${pyStr(a.app_name)}' not found on this phone.`;
      const lines = [`Status for App: ${pyStr(a.app_name)}`];
      const granted = grantedPermissions(app.permissions);
      if (granted.length === 0) lines.push(" - Permissions: None granted.");
      else lines.push(" - Permissions Granted:", ...granted.map((p) => `   - ${p}`));
      return lines.join("\n");
    },
  },
  {
    name: "check_app_permissions",
    description:
      "Checks what permissions a specific app currently has. Shows if the app has access to features like storage, camera, location, etc.",
    params: [{ name: "app_name", schema: S.str }],
    mutates: false,
    run: (s, a) => {
      const app = appStatus(s, a.app_name);
      if (!app) return `App '${pyStr(a.app_name)}' not found on this phone.`;
      const granted = grantedPermissions(app.permissions);
      return granted.length === 0
        ? `App '${pyStr(a.app_name)}' currently has no permissions granted.`
        : `App '${pyStr(a.app_name)}' has permission for: ${granted.join(", ")}.`;
    },
  },
  {
    name: "grant_app_permission",
    description:
      "Gives a specific permission to an app (like access to storage, camera, or location). Required for some app functions to work properly.",
    params: [
      { name: "app_name", description: "The name of the app to grant the permission to.", schema: S.str },
      { name: "permission", description: "The permission to grant, should be lowercase.", schema: S.str },
    ],
    mutates: true,
    run: (s, a) => {
      const app = appStatus(s, a.app_name);
      const permission = requireStrMethod(a.permission, "lower").toLowerCase();
      let ok: boolean;
      let message: string;
      if (!app) {
        ok = false;
        message = `App '${pyStr(a.app_name)}' not found. Cannot grant permission.`;
      } else if (!(PERMISSIONS as readonly string[]).includes(permission)) {
        ok = false;
        message = `Permission '${permission}' not tracked for app '${pyStr(a.app_name)}', available permissions: ${pyRepr([...PERMISSIONS])}`;
      } else {
        app.permissions[permission as (typeof PERMISSIONS)[number]] = true;
        ok = true;
        message = `Permission '${permission}' granted to app '${pyStr(a.app_name)}'.`;
      }
      return withBar(s, `${ok ? "Success. " : "Error. "}${message}`);
    },
  },
  simple("can_send_mms", "Checks if the default messaging app can send MMS messages.", false, (s) =>
    canSendMms(s)
      ? "Your messaging app can send MMS messages."
      : "Your messaging app cannot send MMS messages.",
  ),
  simple(
    "reboot_device",
    "Restarts your phone completely. This can help resolve many temporary software glitches by refreshing all running services and connections.",
    true,
    (s) => {
      const d = deviceOf(s);
      const lines: string[] = [];
      if (apnFor(d, "reset_at_reboot").reset_at_reboot) {
        lines.push("Resetting APN settings...");
        d.active_apn_settings = defaultApn();
      }
      lines.push("Restarting network services...");
      d.network_connection_status = NET.SEARCHING;
      simulateNetworkSearch(s);
      return withBar(s, lines.join("\n"));
    },
  ),
  simple("check_payment_request", "Checks if the agent has sent you a payment request.", false, (s) => {
    const r = surroundingsOf(s).payment_request;
    if (!r) return "No payment request has been made.";
    return `You have a payment request for bill ${r.bill_id} of ${floatRepr(r.amount_due)} USD.`;
  }),
  simple("make_payment", "Makes a payment for the bill that the agent has sent you.", true, (s) => {
    const r = surroundingsOf(s).payment_request;
    if (!r) return "You do not have a payment request.";
    r.paid = true;
    return `Payment of ${floatRepr(r.amount_due)} USD has been made for bill ${r.bill_id}.`;
  }),
];

/** The `APNSettings` JSON schema pydantic writes into `set_apn_settings`' `$defs`. */
function apnSchema() {
  const nullable = (type: string) => ({ anyOf: [{ type }, { type: "null" }] });
  return {
    additionalProperties: false,
    description: "Represents the configuration for a single Access Point Name (APN).",
    properties: {
      apn_name: {
        $ref: "#/$defs/APNNames",
        default: "internet",
        description: "The name identifier for the APN connection.",
      },
      reset_at_reboot: {
        default: false,
        description: "Whether the APN settings will be reset at the next reboot.",
        title: "Reset At Reboot",
        type: "boolean",
      },
      mms_apn: {
        ...nullable("string"),
        default: "mms",
        description: "Specific APN name used for MMS traffic, if different from general data.",
        title: "Mms Apn",
      },
      mmsc_url: {
        ...nullable("string"),
        default: "http://mms.carrier.com/mms/wapenc",
        description: "The URL of the Multimedia Messaging Service Center (MMSC). Crucial for MMS.",
        title: "Mmsc Url",
      },
      mms_proxy: {
        ...nullable("string"),
        default: null,
        description: "The proxy server address required for MMS traffic on some networks.",
        title: "Mms Proxy",
      },
      mms_port: {
        ...nullable("integer"),
        default: null,
        description: "The proxy server port required for MMS traffic on some networks.",
        title: "Mms Port",
      },
    },
    title: "APNSettings",
    type: "object",
  };
}

const fn = (
  name: string,
  params: { name: string; default?: { value: unknown } }[],
  run: (s: Tau2State, a: Args) => unknown,
) => ({
  name,
  params,
  run,
});
const p = (name: string, def?: unknown) => (def === undefined ? { name } : { name, default: { value: def } });

/** Sets a boolean device setting through its toggle, as upstream's turn_*_on/off do. */
function turn(s: Tau2State, flip: () => boolean, want: boolean): void {
  if (flip() !== want) flip();
}

const functions = [
  fn("set_user_info", [p("name"), p("phone_number")], (s, a) => {
    surroundingsOf(s).name = a.name as string;
    surroundingsOf(s).phone_number = a.phone_number as string;
    return null;
  }),
  fn("set_user_location", [p("abroad")], (s, a) => {
    surroundingsOf(s).is_abroad = a.abroad as boolean;
    return null;
  }),
  fn("simulate_network_search", [], (s) => {
    simulateNetworkSearch(s);
    return null;
  }),
  fn("turn_airplane_mode_on", [], (s) => {
    turn(s, () => toggleAirplaneMode(s), true);
    return "Airplane Mode is now ON.";
  }),
  fn("turn_airplane_mode_off", [], (s) => {
    turn(s, () => toggleAirplaneMode(s), false);
    return "Airplane Mode is now OFF.";
  }),
  fn("unseat_sim_card", [], (s) => {
    deviceOf(s).sim_card_missing = true;
    simulateNetworkSearch(s);
    return "SIM card un-seated successfully.";
  }),
  fn("lock_sim_card", [p("mode")], (s, a) => {
    if (a.mode === "pin") deviceOf(s).sim_card_status = SIM.LOCKED_PIN;
    else if (a.mode === "puk") deviceOf(s).sim_card_status = SIM.LOCKED_PUK;
    simulateNetworkSearch(s);
    return `SIM card locked successfully in ${pyStr(a.mode)} mode.`;
  }),
  fn("turn_data_on", [], (s) => {
    deviceOf(s).data_enabled = true;
    return "Data connection restored.";
  }),
  fn("turn_data_off", [], (s) => {
    turn(s, () => toggle(s, "data_enabled"), false);
    return "Data connection broken.";
  }),
  fn("turn_roaming_on", [], (s) => {
    turn(s, () => toggle(s, "roaming_enabled"), true);
    return "Data Roaming is now ON.";
  }),
  fn("turn_roaming_off", [], (s) => {
    turn(s, () => toggle(s, "roaming_enabled"), false);
    return "Data Roaming is now OFF.";
  }),
  fn("turn_data_saver_mode_on", [], (s) => {
    turn(s, () => toggleDataSaver(s), true);
    return "Data Saver Mode is now ON.";
  }),
  fn("turn_data_saver_mode_off", [], (s) => {
    turn(s, () => toggleDataSaver(s), false);
    return "Data Saver Mode is now OFF.";
  }),
  fn("break_apn_settings", [], (s) => {
    apnFor(deviceOf(s), "apn_name").apn_name = APN_NAMES.BROKEN;
    simulateNetworkSearch(s);
    return "APN settings broken. Please call reset_apn_settings() to fix.";
  }),
  fn("break_apn_mms_setting", [], (s) => {
    apnFor(deviceOf(s), "mmsc_url").mmsc_url = null;
    return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
  }),
  fn("set_wifi_calling", [p("enabled"), p("mms_over_wifi", null)], (s, a) => {
    const d = deviceOf(s);
    if (d.wifi_calling_enabled !== a.enabled) d.wifi_calling_enabled = !d.wifi_calling_enabled;
    let msg = `Wi-Fi Calling is now ${onOff(Boolean(a.enabled))}.`;
    if (a.mms_over_wifi !== null) {
      d.wifi_calling_mms_over_wifi = a.mms_over_wifi as boolean;
      msg += `\nMMS over Wi-Fi is now ${onOff(Boolean(a.mms_over_wifi))}.`;
    }
    return msg;
  }),
  fn("break_vpn", [], (s) => {
    connectVpn(s);
    const details = deviceOf(s).vpn_details;
    if (!details)
      throw new PyError("AttributeError", "'NoneType' object has no attribute 'server_performance'");
    details.server_performance = "poor";
    return "VPN connection broken.";
  }),
  fn("remove_app_permission", [p("app_name"), p("permission")], (s, a) => {
    const app = appStatus(s, a.app_name);
    const permission = requireStrMethod(a.permission, "lower").toLowerCase();
    if (!app) return [false, `App '${pyStr(a.app_name)}' not found. Cannot remove permission.`];
    if (!(PERMISSIONS as readonly string[]).includes(permission))
      return [false, `Permission '${permission}' not tracked for app '${pyStr(a.app_name)}'.`];
    app.permissions[permission as (typeof PERMISSIONS)[number]] = false;
    return [true, `Permission '${permission}' removed from app '${pyStr(a.app_name)}'.`];
  }),
  fn(
    "assert_airplane_mode_status",
    [p("expected_status")],
    (s, a) => deviceOf(s).airplane_mode === a.expected_status,
  ),
  fn("assert_service_status", [p("expected_status")], (s, a) => {
    if (!(Object.values(NET) as unknown[]).includes(a.expected_status))
      throw valueError(`${pyRepr(a.expected_status)} is not a valid NetworkStatus`);
    return deviceOf(s).network_connection_status === a.expected_status;
  }),
  fn(
    "assert_mobile_data_status",
    [p("expected_status")],
    (s, a) => mobileDataWorking(s) === a.expected_status,
  ),
  fn(
    "assert_mobile_roaming_status",
    [p("expected_status")],
    (s, a) => deviceOf(s).roaming_enabled === a.expected_status,
  ),
  fn(
    "assert_mobile_data_saver_mode_status",
    [p("expected_status")],
    (s, a) => deviceOf(s).data_saver_mode === a.expected_status,
  ),
  fn("assert_internet_speed", [p("expected_speed"), p("expected_desc", null)], (s, a) => {
    const [speed, desc] = speedTest(s);
    const mbps = speed ?? 0;
    const fast = mbps >= (a.expected_speed as number);
    if (a.expected_desc === null) return fast;
    return fast && desc.toLowerCase() === requireStrMethod(a.expected_desc, "lower").toLowerCase();
  }),
  fn("assert_internet_not_excellent", [], (s) => speedTest(s)[1].toLowerCase() !== "excellent"),
  fn("assert_can_send_mms", [p("expected_status")], (s, a) => canSendMms(s) === a.expected_status),
  fn(
    "assert_mobile_data_usage_exceeded",
    [p("expected_status")],
    (s, a) => surroundingsOf(s).mobile_data_usage_exceeded === a.expected_status,
  ),
];

export const telecomUserToolkit: Toolkit<Tau2State> = { className: "TelecomUserTools", tools, functions };

/** Exposed for tests: the environment's own VPN defaults object. */
export { defaultVpnDetails };
