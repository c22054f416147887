/**
 * Telecom user-side data model (upstream `tau2/domains/telecom/user_data_model.py`): the user's
 * phone (`MockPhoneAttributes`) and surroundings (where they are, what the agent asked them to pay).
 */
import { pyValidate, T } from "../py-model.js";

const M = T.strictModel;

export const SIM = {
  ACTIVE: "active",
  MISSING: "missing",
  LOCKED_PIN: "locked_pin",
  LOCKED_PUK: "locked_puk",
};
export const TECH = { NONE: "none", G2: "2G", G3: "3G", G4: "4G", G5: "5G" } as const;
export const MODE = {
  G4_G5: "4g_5g_preferred",
  G4_ONLY: "4g_only",
  G3_ONLY: "3g_only",
  G2_ONLY: "2g_only",
} as const;
export const SIGNAL = { NONE: "none", POOR: "poor", FAIR: "fair", GOOD: "good", EXCELLENT: "excellent" };
export const NET = {
  CONNECTED: "connected",
  SEARCHING: "searching",
  NO_SERVICE: "no_service",
  EMERGENCY_ONLY: "emergency_only",
};
export const APN_NAMES = { INTERNET: "internet", BROKEN: "broken" };

const SimStatusT = T.enumOf(...Object.values(SIM));
const TechT = T.enumOf(...Object.values(TECH));
const ModeT = T.enumOf(...Object.values(MODE));
const SignalT = T.enumOf(...Object.values(SIGNAL));
const PerformanceT = T.enumOf("unknown", "poor", "fair", "good", "excellent");
const NetT = T.enumOf(...Object.values(NET));

export const APNSettings = M("APNSettings", [
  { name: "apn_name", t: T.enumOf(...Object.values(APN_NAMES)), optional: true, default: "internet" },
  { name: "reset_at_reboot", t: T.bool, optional: true, default: false },
  { name: "mms_apn", t: T.opt(T.str), optional: true, default: "mms" },
  { name: "mmsc_url", t: T.opt(T.str), optional: true, default: "http://mms.carrier.com/mms/wapenc" },
  { name: "mms_proxy", t: T.opt(T.str), optional: true },
  { name: "mms_port", t: T.opt(T.int), optional: true },
]);
export const VpnDetails = M("VpnDetails", [
  { name: "server_address", t: T.opt(T.str), optional: true },
  { name: "protocol", t: T.opt(T.str), optional: true },
  { name: "server_performance", t: PerformanceT, optional: true, default: "unknown" },
]);
export const AppPermissions = M("AppPermissions", [
  { name: "sms", t: T.bool, optional: true, default: false },
  { name: "storage", t: T.bool, optional: true, default: false },
  { name: "phone", t: T.bool, optional: true, default: false },
  { name: "network", t: T.bool, optional: true, default: false },
]);
const perms = (p: Partial<Record<"sms" | "storage" | "phone" | "network", boolean>>) => ({
  sms: false,
  storage: false,
  phone: false,
  network: false,
  ...p,
});
export const AppStatus = M("AppStatus", [
  { name: "app_name", t: T.str },
  { name: "permissions", t: AppPermissions, optional: true, default: perms({}) },
]);
export const MockPhoneAttributes = M("MockPhoneAttributes", [
  { name: "sim_card_status", t: SimStatusT, optional: true, default: "active" },
  { name: "sim_card_missing", t: T.bool, optional: true, default: false },
  { name: "airplane_mode", t: T.bool, optional: true, default: false },
  { name: "network_signal_strength", t: SignalT, optional: true, default: "good" },
  { name: "network_technology_connected", t: TechT, optional: true, default: "5G" },
  { name: "network_connection_status", t: NetT, optional: true, default: "connected" },
  { name: "battery_level", t: T.int, optional: true, default: 80 },
  { name: "data_enabled", t: T.bool, optional: true, default: true },
  { name: "roaming_enabled", t: T.bool, optional: true, default: false },
  { name: "network_mode_preference", t: ModeT, optional: true, default: "4g_5g_preferred" },
  { name: "active_apn_settings", t: APNSettings, optional: true, default: defaultApn() },
  { name: "wifi_enabled", t: T.bool, optional: true, default: false },
  { name: "wifi_connected", t: T.bool, optional: true, default: false },
  { name: "wifi_ssid", t: T.opt(T.str), optional: true },
  { name: "wifi_signal_strength", t: SignalT, optional: true, default: "none" },
  { name: "wifi_calling_enabled", t: T.bool, optional: true, default: false },
  { name: "wifi_calling_mms_over_wifi", t: T.bool, optional: true, default: false },
  { name: "data_saver_mode", t: T.bool, optional: true, default: false },
  { name: "vpn_enabled_setting", t: T.bool, optional: true, default: false },
  { name: "vpn_connected", t: T.bool, optional: true, default: false },
  { name: "vpn_details", t: T.opt(VpnDetails), optional: true },
  {
    name: "app_statuses",
    t: T.dict(AppStatus),
    optional: true,
    default: new Map([
      ["messaging", { app_name: "messaging", permissions: perms({ sms: true, storage: true, phone: true }) }],
      ["browser", { app_name: "browser", permissions: perms({ network: true, storage: true }) }],
    ]),
  },
]);
export const PaymentRequest = M("PaymentRequest", [
  { name: "bill_id", t: T.str },
  { name: "amount_due", t: T.float },
  { name: "paid", t: T.bool, optional: true, default: false },
]);
export const UserSurroundings = M("UserSurroundings", [
  { name: "name", t: T.opt(T.str), optional: true },
  { name: "phone_number", t: T.opt(T.str), optional: true },
  { name: "is_abroad", t: T.bool, optional: true, default: false },
  { name: "roaming_allowed", t: T.bool, optional: true, default: false },
  {
    name: "signal_strength",
    t: T.dict(SignalT),
    optional: true,
    default: new Map([
      ["2G", "poor"],
      ["3G", "fair"],
      ["4G", "good"],
      ["5G", "excellent"],
    ]),
  },
  { name: "mobile_data_usage_exceeded", t: T.bool, optional: true, default: false },
  { name: "line_active", t: T.bool, optional: true, default: true },
  { name: "payment_request", t: T.opt(PaymentRequest), optional: true },
]);
/** A model's value built from its defaults alone (`Model()`). */
function defaults(model: typeof MockPhoneAttributes): unknown {
  const r = pyValidate(new Map(), model);
  if (!r.ok) throw new Error(`${model.name} has required fields`);
  return r.value;
}
export const TelecomUserDBType = M("TelecomUserDB", [
  { name: "device", t: MockPhoneAttributes, optional: true, default: defaults(MockPhoneAttributes) },
  { name: "surroundings", t: UserSurroundings, optional: true, default: defaults(UserSurroundings) },
]);

/** `APNSettings()`: a fresh default APN configuration. */
export function defaultApn() {
  return {
    apn_name: "internet",
    reset_at_reboot: false,
    mms_apn: "mms",
    mmsc_url: "http://mms.carrier.com/mms/wapenc",
    mms_proxy: null,
    mms_port: null,
  };
}

export interface ApnV {
  apn_name: string;
  reset_at_reboot: boolean;
  mms_apn: string | null;
  mmsc_url: string | null;
  mms_proxy: string | null;
  mms_port: number | null;
}
export interface VpnV {
  server_address: string | null;
  protocol: string | null;
  server_performance: string;
}
export interface PermsV {
  sms: boolean;
  storage: boolean;
  phone: boolean;
  network: boolean;
}
export interface DeviceV {
  sim_card_status: string;
  sim_card_missing: boolean;
  airplane_mode: boolean;
  network_signal_strength: unknown;
  network_technology_connected: unknown;
  network_connection_status: string;
  battery_level: number;
  data_enabled: boolean;
  roaming_enabled: boolean;
  network_mode_preference: unknown;
  active_apn_settings: ApnV;
  wifi_enabled: boolean;
  wifi_connected: boolean;
  wifi_ssid: string | null;
  wifi_signal_strength: string;
  wifi_calling_enabled: boolean;
  wifi_calling_mms_over_wifi: boolean;
  data_saver_mode: boolean;
  vpn_enabled_setting: boolean;
  vpn_connected: boolean;
  vpn_details: VpnV | null;
  app_statuses: Map<string, { app_name: string; permissions: PermsV }>;
}
export interface PaymentRequestV {
  bill_id: string;
  amount_due: number;
  paid: boolean;
}
export interface SurroundingsV {
  name: string | null;
  phone_number: string | null;
  is_abroad: boolean;
  roaming_allowed: boolean;
  signal_strength: Map<string, string>;
  mobile_data_usage_exceeded: boolean;
  line_active: boolean;
  payment_request: PaymentRequestV | null;
}
export interface TelecomUserDBV {
  device: DeviceV;
  surroundings: SurroundingsV;
}
