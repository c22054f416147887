/**
 * The simulated phone of telecom's user (upstream `TelecomUserTools`' private methods): what the
 * status bar shows, whether mobile data works, the speed test, network search and MMS. The user
 * tools in `telecom-user.ts` are thin wrappers around these.
 */
import { pyRound } from "../py-round.js";
import { PyError, pyTypeName } from "../py-errors.js";
import type { Tau2State } from "../environment.js";
import {
  APN_NAMES,
  MODE,
  NET,
  SIGNAL,
  SIM,
  TECH,
  type ApnV,
  type DeviceV,
  type SurroundingsV,
  type TelecomUserDBV,
  type VpnV,
} from "./telecom-user-model.js";

/**
 * The active APN settings, for reading `attr`. Upstream stores whatever `set_apn_settings` got
 * when it is not a dict, so every later use fails as Python's attribute access does.
 */
export function apnFor(d: DeviceV, attr: string): ApnV {
  const apn = d.active_apn_settings as unknown;
  if (apn === null || typeof apn !== "object" || Array.isArray(apn))
    throw new PyError("AttributeError", `'${pyTypeName(apn)}' object has no attribute '${attr}'`);
  return apn as ApnV;
}

export const userDbOf = (s: Tau2State) => s.userDb as unknown as TelecomUserDBV;
export const deviceOf = (s: Tau2State): DeviceV => userDbOf(s).device;
export const surroundingsOf = (s: Tau2State): SurroundingsV => userDbOf(s).surroundings;

/**
 * Upstream keeps the VPN details `connect_vpn` installs in one class attribute, shared by every
 * environment of a process and mutated by `break_vpn`. Here each environment has its own object,
 * still shared within it (a later `connect_vpn` brings back the broken one, as upstream).
 */
const vpnDefaults = new WeakMap<Tau2State, VpnV>();
export function defaultVpnDetails(s: Tau2State): VpnV {
  let v = vpnDefaults.get(s);
  if (!v) {
    v = { server_address: "192.168.1.1", protocol: "OpenVPN", server_performance: "excellent" };
    vpnDefaults.set(s, v);
  }
  return v;
}

const SIGNAL_ICONS: Record<string, string> = {
  none: "📵 No Signal",
  poor: "📶¹ Poor",
  fair: "📶² Fair",
  good: "📶³ Good",
  excellent: "📶⁴ Excellent",
};

export function statusBar(s: Tau2State): string {
  const d = deviceOf(s);
  const parts: string[] = [];
  if (d.airplane_mode) parts.push("✈️ Airplane Mode");
  else {
    parts.push(SIGNAL_ICONS[String(d.network_signal_strength)] ?? "📵 No Signal");
    if (d.network_technology_connected !== TECH.NONE) parts.push(String(d.network_technology_connected));
    if (d.data_enabled && d.network_technology_connected !== TECH.NONE) {
      parts.push("📱 Data Enabled");
      if (d.data_saver_mode) parts.push("🔽 Data Saver");
    } else parts.push("📵 Data Disabled");
  }
  if (d.wifi_enabled && d.wifi_connected)
    parts.push(d.wifi_ssid ? `📡 Connected to ${d.wifi_ssid}` : "📡 Enabled");
  if (d.vpn_connected) parts.push("🔒 VPN Connected");
  parts.push(`🔋 ${d.battery_level}%`);
  return parts.join(" | ");
}

export function simStatus(s: Tau2State): string {
  const d = deviceOf(s);
  return d.sim_card_missing ? SIM.MISSING : d.sim_card_status;
}

export function mobileDataWorking(s: Tau2State): boolean {
  const d = deviceOf(s);
  const sur = surroundingsOf(s);
  if (d.airplane_mode || d.network_signal_strength === SIGNAL.NONE) return false;
  if (d.network_connection_status === NET.NO_SERVICE) return false;
  if (sur.is_abroad && (!d.roaming_enabled || !sur.roaming_allowed)) return false;
  if (!d.data_enabled) return false;
  return !sur.mobile_data_usage_exceeded;
}

const TECH_SPEED: Record<string, [number, number]> = {
  "2G": [0.1, 0.4],
  "3G": [1.0, 5.0],
  "4G": [10.0, 100.0],
  "5G": [50.0, 500.0],
  none: [0, 0],
};
const SIGNAL_FACTOR: Record<string, number> = { poor: 0.2, fair: 0.5, good: 0.8, excellent: 1.0, none: 0 };

/** `_run_speed_test`: [Mbps, description], or [null, "No Connection"]. */
export function speedTest(s: Tau2State): [number | null, string] {
  if (!mobileDataWorking(s)) return [null, "No Connection"];
  const d = deviceOf(s);
  let factor = d.vpn_connected && d.vpn_details && d.vpn_details.server_performance === "poor" ? 0.1 : 1.0;
  if (d.data_saver_mode) factor *= 0.2;
  const [lo, hi] = TECH_SPEED[String(d.network_technology_connected)] ?? [0, 0];
  const signal = SIGNAL_FACTOR[String(d.network_signal_strength)] ?? 0;
  const speed = pyRound(((lo + hi) / 2.0) * signal * factor, 2);
  const desc =
    speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
  return [speed, desc];
}

const SPEED_ADVICE: Record<string, string> = {
  "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
  Poor: "Connection is slow. Web browsing may be sluggish, streaming difficult.",
  Fair: "Connection is okay for web browsing and some standard definition streaming.",
  Good: "Connection is good for most activities, including HD streaming.",
  Excellent: "Connection is very fast.",
};

export function speedTestText(s: Tau2State): string {
  const [speed, desc] = speedTest(s);
  if (speed === null) return `Speed test failed: ${desc || "Could not determine speed"}.`;
  return `Speed Test Result: ${pyRound(speed, 2).toFixed(2)} Mbps (${desc}). ${SPEED_ADVICE[desc] ?? ""}`;
}

/** `simulate_network_search`: reconnects according to SIM, preference, APN, line and airplane mode. */
export function simulateNetworkSearch(s: Tau2State): void {
  const d = deviceOf(s);
  const signalOf = (tech: string) => surroundingsOf(s).signal_strength.get(tech) ?? SIGNAL.NONE;
  const noService = () => {
    d.network_connection_status = NET.NO_SERVICE;
    d.network_technology_connected = TECH.NONE;
    d.network_signal_strength = SIGNAL.NONE;
  };
  if (simStatus(s) === SIM.ACTIVE) {
    d.network_connection_status = NET.CONNECTED;
    const pref = d.network_mode_preference;
    let tech: string = TECH.G4;
    if (pref === MODE.G4_G5) tech = signalOf(TECH.G5) === SIGNAL.NONE ? TECH.G4 : TECH.G5;
    else if (pref === MODE.G3_ONLY) tech = TECH.G3;
    else if (pref === MODE.G2_ONLY) tech = TECH.G2;
    d.network_technology_connected = tech;
    d.network_signal_strength = signalOf(tech);
  } else noService();
  if (d.airplane_mode) noService();
  if (apnFor(d, "apn_name").apn_name === APN_NAMES.BROKEN) noService();
  if (!surroundingsOf(s).line_active) noService();
}

export function canSendMms(s: Tau2State): boolean {
  const d = deviceOf(s);
  if (!mobileDataWorking(s)) return false;
  if (d.network_technology_connected === TECH.G2) return false;
  if (d.wifi_calling_enabled && d.wifi_calling_mms_over_wifi) return false;
  if (apnFor(d, "mmsc_url").mmsc_url === null) return false;
  const app = d.app_statuses.get("messaging");
  if (!app) return false;
  return app.permissions.storage && app.permissions.sms;
}

export function toggleAirplaneMode(s: Tau2State): boolean {
  const d = deviceOf(s);
  const wasOn = d.airplane_mode;
  d.airplane_mode = !wasOn;
  if (wasOn) {
    d.network_connection_status = NET.SEARCHING;
    if (d.wifi_enabled) clearWifi(d);
  } else {
    clearWifi(d);
    if (d.vpn_connected) disconnectVpn(s);
  }
  simulateNetworkSearch(s);
  return d.airplane_mode;
}

function clearWifi(d: DeviceV): void {
  d.wifi_connected = false;
  d.wifi_ssid = null;
  d.wifi_signal_strength = SIGNAL.NONE;
}

export function disconnectVpn(s: Tau2State): boolean {
  const d = deviceOf(s);
  if (!d.vpn_connected) return false;
  d.vpn_connected = false;
  d.vpn_details = null;
  return true;
}

/** `_connect_vpn`: null when already connected. */
export function connectVpn(s: Tau2State): boolean | null {
  const d = deviceOf(s);
  if (d.vpn_connected) return null;
  d.vpn_connected = true;
  d.vpn_details = defaultVpnDetails(s);
  return true;
}

/** Python's repr of `VpnDetails.model_dump()` (the enum shows as `<PerformanceLevel.X: 'x'>`). */
export function vpnDetailsRepr(v: VpnV): string {
  const q = (x: string | null) => (x === null ? "None" : `'${x}'`);
  const perf = `<PerformanceLevel.${v.server_performance.toUpperCase()}: '${v.server_performance}'>`;
  return `{'server_address': ${q(v.server_address)}, 'protocol': ${q(v.protocol)}, 'server_performance': ${perf}}`;
}
