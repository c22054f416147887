/**
 * Telecom agent tools (upstream `tau2/domains/telecom/tools.py`) and the environment's
 * `sync_tools`, which after every call mirrors the agent DB into the user's surroundings (line
 * active, roaming allowed, data used up, a bill awaiting payment) and marks a paid bill as paid.
 *
 * One deliberate difference: upstream names a new draft bill `B` + 8 hex digits of a random
 * uuid4; here it is a per-environment counter (`B00000001`, `B00000002`, …) so hashes are stable.
 */
import { floatRepr } from "../py-json.js";
import {
  PyError,
  pyRepr,
  pyStr,
  pyTypeName,
  requireNumber,
  requireStrMethod,
  valueError,
} from "../py-errors.js";
import { pyConstruct, pyDump } from "../py-model.js";
import { pyRound } from "../py-round.js";
import type { Tau2State } from "../environment.js";
import { type Args, S, transferTool, type ToolDef, type Toolkit } from "../toolkit.js";
import { addDays, firstOfMonth, firstOfNextMonth, TODAY } from "./telecom-dates.js";
import {
  Bill,
  BillStatus,
  type BillV,
  Customer,
  type CustomerV,
  Device,
  Line,
  LineItem,
  type LineV,
  LineStatus,
  Plan,
  type PlanV,
  type TelecomDBV,
} from "./telecom-model.js";
import { PaymentRequest, type TelecomUserDBV } from "./telecom-user-model.js";

const dbOf = (s: Tau2State) => s.db as unknown as TelecomDBV;

/** Per-environment counter for new bill ids (see the file comment). */
const billCounters = new WeakMap<Tau2State, number>();
function nextBillId(s: Tau2State): string {
  const n = (billCounters.get(s) ?? 0) + 1;
  billCounters.set(s, n);
  return `B${String(n).padStart(8, "0")}`;
}

/** Python's `str()` of a value held in a float field. */
const fstr = (x: unknown) => (typeof x === "number" ? floatRepr(x) : pyStr(x));
/** `f"{x:.2f}"`. */
const fixed2 = (x: number) => pyRound(x, 2).toFixed(2);

export function getCustomerById(s: Tau2State, customerId: unknown): CustomerV {
  const c = dbOf(s).customers.find((x) => x.customer_id === customerId);
  if (!c) throw valueError(`Customer with ID ${pyStr(customerId)} not found`);
  return c;
}
function getLineById(s: Tau2State, lineId: unknown): LineV {
  const l = dbOf(s).lines.find((x) => x.line_id === lineId);
  if (!l) throw valueError(`Line with ID ${pyStr(lineId)} not found`);
  return l;
}
export function getLineByPhone(s: Tau2State, phone: unknown): LineV {
  const l = dbOf(s).lines.find((x) => x.phone_number === phone);
  if (!l) throw valueError(`Line with phone number ${pyStr(phone)} not found`);
  return l;
}
export function getPlanById(s: Tau2State, planId: unknown): PlanV {
  const p = dbOf(s).plans.find((x) => x.plan_id === planId);
  if (!p) throw valueError(`Plan with ID ${pyStr(planId)} not found`);
  return p;
}
function getDeviceById(s: Tau2State, deviceId: unknown) {
  const d = dbOf(s).devices.find((x) => x.device_id === deviceId);
  if (!d) throw valueError(`Device with ID ${pyStr(deviceId)} not found`);
  return d;
}
function getBillById(s: Tau2State, billId: unknown): BillV {
  const b = dbOf(s).bills.find((x) => x.bill_id === billId);
  if (!b) throw valueError(`Bill with ID ${pyStr(billId)} not found`);
  return b;
}
export function getCustomerByPhone(s: Tau2State, phone: unknown): CustomerV {
  for (const c of dbOf(s).customers) {
    if (c.phone_number === phone) return c;
    for (const lineId of c.line_ids) {
      if (getLineById(s, lineId).phone_number === phone) return c;
    }
  }
  throw valueError(`Customer with phone number ${pyStr(phone)} not found`);
}
function getTargetLine(s: Tau2State, customerId: unknown, lineId: unknown): LineV {
  const c = getCustomerById(s, customerId);
  if (!c.line_ids.includes(lineId as string))
    throw valueError(`Line ${pyStr(lineId)} not found for customer ${pyStr(customerId)}`);
  return getLineById(s, lineId);
}
export function billsAwaitingPayment(s: Tau2State, c: CustomerV): BillV[] {
  return c.bill_ids.map((id) => getBillById(s, id)).filter((b) => b.status === BillStatus.AWAITING_PAYMENT);
}

/** `_apply_one_time_charge`: a line item on the customer's draft bill (created when missing). */
function applyOneTimeCharge(s: Tau2State, customerId: unknown, amount: number, description: string): void {
  const c = getCustomerById(s, customerId);
  let draft = c.bill_ids.map((id) => getBillById(s, id)).find((b) => b.status === BillStatus.DRAFT);
  if (!draft) {
    const nextMonth = firstOfNextMonth(TODAY);
    const id = nextBillId(s);
    draft = pyConstruct<BillV>(Bill, {
      bill_id: id,
      customer_id: customerId,
      period_start: nextMonth,
      period_end: addDays(firstOfNextMonth(nextMonth), -1),
      issue_date: nextMonth,
      total_due: 0,
      due_date: addDays(nextMonth, 14),
      status: BillStatus.DRAFT,
    });
    dbOf(s).bills.push(draft);
    c.bill_ids.push(id);
  }
  draft.line_items.push(
    pyConstruct(LineItem, {
      description,
      amount,
      date: TODAY,
      item_type: amount < 0 ? "Credit" : "Charge",
    }),
  );
  draft.total_due += amount;
}

const customerAndLine = (verb: string) => [
  { name: "customer_id", description: "ID of the customer who owns the line.", schema: S.str },
  { name: "line_id", description: `ID of the line to ${verb}.`, schema: S.str },
];

/** A tool whose result is a live model: dumped after `sync_tools`, as upstream serialises it. */
const later = (f: () => unknown) => f;

const tools: ToolDef<Tau2State>[] = [
  {
    name: "get_customer_by_phone",
    description: "Finds a customer by their primary contact or line phone number.",
    params: [{ name: "phone_number", description: "The phone number to search for.", schema: S.str }],
    mutates: false,
    run: (s, a) => {
      const c = getCustomerByPhone(s, a.phone_number);
      return later(() => pyDump(c, Customer));
    },
  },
  {
    name: "get_customer_by_id",
    description: "Retrieves a customer directly by their unique ID.",
    params: [{ name: "customer_id", description: "The unique identifier of the customer.", schema: S.str }],
    mutates: false,
    run: (s, a) => {
      const c = getCustomerById(s, a.customer_id);
      return later(() => pyDump(c, Customer));
    },
  },
  {
    name: "get_customer_by_name",
    description:
      "Searches for customers by name and DOB. May return multiple matches if names are similar,\n\nDOB helps disambiguate.",
    params: [
      { name: "full_name", description: "The full name of the customer.", schema: S.str },
      {
        name: "dob",
        description: "Date of birth for verification, in the format YYYY-MM-DD.",
        schema: S.str,
      },
    ],
    mutates: false,
    run: (s, a) => {
      const found = dbOf(s).customers.filter(
        (c) =>
          c.full_name.toLowerCase() === requireStrMethod(a.full_name, "lower").toLowerCase() &&
          c.date_of_birth === a.dob,
      );
      return later(() => found.map((c) => pyDump(c, Customer)));
    },
  },
  {
    name: "get_details_by_id",
    description:
      "Retrieves the details for a given ID.\n\nThe ID must be a valid ID for a Customer, Line, Device, Bill, or Plan.",
    params: [{ name: "id", description: "The ID of the object to retrieve.", schema: S.str }],
    mutates: false,
    run: (s, a) => {
      const id = requireStrMethod(a.id, "startswith");
      if (id.startsWith("L")) return later(() => pyDump(getLineById(s, id), Line));
      if (id.startsWith("D")) return later(() => pyDump(getDeviceById(s, id), Device));
      if (id.startsWith("B")) return later(() => pyDump(getBillById(s, id), Bill));
      if (id.startsWith("C")) return later(() => pyDump(getCustomerById(s, id), Customer));
      if (id.startsWith("P")) return later(() => pyDump(getPlanById(s, id), Plan));
      throw valueError(`Unknown ID format or type: ${id}`);
    },
  },
  {
    name: "suspend_line",
    description:
      "Suspends a specific line (max 6 months).\n\nChecks: Line status must be Active.\nLogic: Sets line status to Suspended, records suspension_start_date.",
    params: [
      ...customerAndLine("suspend"),
      { name: "reason", description: "Reason for suspension.", schema: S.str },
    ],
    mutates: true,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      if (line.status !== LineStatus.ACTIVE) throw valueError("Line must be active to suspend");
      line.status = LineStatus.SUSPENDED;
      line.suspension_start_date = TODAY;
      return later(
        () =>
          new Map<string, unknown>([
            ["message", "Line suspended successfully. $5/month holding fee will apply."],
            ["line", pyDump(line, Line)],
          ]),
      );
    },
  },
  {
    name: "resume_line",
    description:
      "Resumes a suspended line.\n\nChecks: Line status must be Suspended or Pending Activation.\nLogic: Sets line status to Active, clears suspension_start_date.",
    params: customerAndLine("resume"),
    mutates: true,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      if (line.status !== LineStatus.SUSPENDED && line.status !== LineStatus.PENDING_ACTIVATION)
        throw valueError("Line must be suspended to resume");
      line.status = LineStatus.ACTIVE;
      line.suspension_start_date = null;
      return later(
        () =>
          new Map<string, unknown>([
            ["message", "Line resumed successfully"],
            ["line", pyDump(line, Line)],
          ]),
      );
    },
  },
  {
    name: "get_bills_for_customer",
    description: "Retrieves a list of the customer's bills, most recent first.",
    params: [
      { name: "customer_id", description: "ID of the customer.", schema: S.str },
      {
        name: "limit",
        description: "Maximum number of bills to return.",
        schema: S.int,
        default: { value: 12 },
      },
    ],
    mutates: false,
    run: (s, a) => {
      const c = getCustomerById(s, a.customer_id);
      const bills = c.bill_ids.map((id) => getBillById(s, id));
      // Python's sorted(reverse=True) is stable: equal dates keep their order.
      const sorted = [...bills].sort((x, y) =>
        x.issue_date < y.issue_date ? 1 : x.issue_date > y.issue_date ? -1 : 0,
      );
      const limit = a.limit;
      if (typeof limit !== "number" || !Number.isInteger(limit))
        throw new PyError("TypeError", "slice indices must be integers or None or have an __index__ method");
      const kept = limit >= 0 ? sorted.slice(0, limit) : sorted.slice(0, Math.max(0, sorted.length + limit));
      return later(() => kept.map((b) => pyDump(b, Bill)));
    },
  },
  {
    name: "send_payment_request",
    description:
      "Sends a payment request to the customer for a specific bill.\n\nChecks:\n    - Customer exists\n    - Bill exists and belongs to the customer\n    - No other bills are already awaiting payment for this customer\nLogic: Sets bill status to AWAITING_PAYMENT and notifies customer.\nWarning: This method does not check if the bill is already PAID.\nAlways check the bill status before calling this method.",
    params: [
      { name: "customer_id", description: "ID of the customer who owns the bill.", schema: S.str },
      { name: "bill_id", description: "ID of the bill to send payment request for.", schema: S.str },
    ],
    mutates: true,
    run: (s, a) => {
      const c = getCustomerById(s, a.customer_id);
      if (billsAwaitingPayment(s, c).length !== 0)
        throw valueError("A bill is already awaiting payment for this customer");
      if (!c.bill_ids.includes(a.bill_id as string))
        throw valueError(`Bill ${pyStr(a.bill_id)} not found for customer ${pyStr(a.customer_id)}`);
      const bill = getBillById(s, a.bill_id);
      bill.status = BillStatus.AWAITING_PAYMENT;
      return `Payment request sent to the customer for bill ${bill.bill_id}`;
    },
  },
  {
    name: "get_data_usage",
    description:
      "Retrieves current billing cycle data usage for a line, including data\n\nrefueling amount, data limit, and cycle end date.",
    params: customerAndLine("check usage for"),
    mutates: false,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      const plan = getPlanById(s, line.plan_id);
      // Upstream's to_json_str turns the dict's numbers into their str().
      return new Map<string, unknown>([
        ["line_id", typeof a.line_id === "string" ? a.line_id : pyStr(a.line_id)],
        ["data_used_gb", fstr(line.data_used_gb)],
        ["data_limit_gb", fstr(plan.data_limit_gb)],
        ["data_refueling_gb", fstr(line.data_refueling_gb)],
        ["cycle_end_date", addDays(firstOfNextMonth(TODAY), -1)],
      ]);
    },
  },
  {
    name: "enable_roaming",
    description: "Enables international roaming on a line.",
    params: customerAndLine("enable roaming for"),
    mutates: true,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      if (line.roaming_enabled) return "Roaming was already enabled";
      line.roaming_enabled = true;
      return "Roaming enabled successfully";
    },
  },
  {
    name: "disable_roaming",
    description: "Disables international roaming on a line.",
    params: customerAndLine("disable roaming for"),
    mutates: true,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      if (!line.roaming_enabled) return "Roaming was already disabled";
      line.roaming_enabled = false;
      return "Roaming disabled successfully";
    },
  },
  transferTool<Tau2State>(),
  {
    name: "refuel_data",
    description:
      "Refuels data for a specific line, adding to the customer's bill.\n\nChecks: Line status must be Active, Customer owns the line.\nLogic: Adds data to the line and charges customer based on the plan's refueling rate.",
    params: [
      ...customerAndLine("refuel data for"),
      {
        name: "gb_amount",
        description: "Amount of data to add in gigabytes.",
        schema: { type: "number" },
      },
    ],
    mutates: true,
    run: (s, a) => {
      const line = getTargetLine(s, a.customer_id, a.line_id);
      if (typeof a.gb_amount !== "number" && typeof a.gb_amount !== "boolean")
        throw new PyError(
          "TypeError",
          `'<=' not supported between instances of '${pyTypeName(a.gb_amount)}' and 'int'`,
        );
      const gb = requireNumber(a.gb_amount, "*", "float");
      if (gb <= 0) throw valueError("Refuel amount must be positive");
      const plan = getPlanById(s, line.plan_id);
      const price = plan.data_refueling_price_per_gb;
      const charge = gb * price;
      line.data_refueling_gb += gb;
      // A number given for this float parameter prints as a Python float ("2.0").
      applyOneTimeCharge(
        s,
        a.customer_id,
        charge,
        `Data refueling: ${floatRepr(gb)} GB at $${floatRepr(price)}/GB`,
      );
      return new Map<string, unknown>([
        [
          "message",
          `Successfully added ${floatRepr(gb)} GB of data for line ${pyStr(a.line_id)} for $${fixed2(charge)}`,
        ],
        ["new_data_refueling_gb", floatRepr(line.data_refueling_gb)],
        ["charge", floatRepr(charge)],
      ]);
    },
  },
];

const fn = (name: string, params: string[], run: (s: Tau2State, a: Args) => unknown) => ({
  name,
  params: params.map((p) => ({ name: p })),
  run,
});

const functions = [
  fn("get_available_plan_ids", [], (s) => dbOf(s).plans.map((p) => p.plan_id)),
  fn("set_data_usage", ["customer_id", "line_id", "data_used_gb"], (s, a) => {
    const line = getTargetLine(s, a.customer_id, a.line_id);
    line.data_used_gb = a.data_used_gb as number;
    return `Data usage set to ${fstr(a.data_used_gb)} GB for line ${pyStr(a.line_id)}`;
  }),
  fn("suspend_line_for_overdue_bill", ["customer_id", "line_id", "new_bill_id", "contract_ended"], (s, a) => {
    const line = getLineById(s, a.line_id);
    if (line.status !== LineStatus.ACTIVE) throw valueError("Line must be active to suspend for unpaid bill");
    const amount = getPlanById(s, line.plan_id).price_per_month;
    if (amount <= 0) throw valueError("Amount must be positive for overdue bill");
    const c = getCustomerById(s, a.customer_id);
    if (c.bill_ids.some((id) => getBillById(s, id).status === BillStatus.OVERDUE))
      throw valueError("Customer already has an overdue bill");
    const lastMonthEnd = addDays(firstOfMonth(TODAY), -1);
    const lastMonthStart = firstOfMonth(lastMonthEnd);
    const bill = pyConstruct<BillV>(Bill, {
      bill_id: a.new_bill_id,
      customer_id: a.customer_id,
      period_start: lastMonthStart,
      period_end: lastMonthEnd,
      issue_date: lastMonthStart,
      total_due: 0,
      due_date: addDays(lastMonthStart, 14),
      status: BillStatus.OVERDUE,
    });
    bill.line_items.push(
      pyConstruct(LineItem, {
        description: `Charge for line ${line.line_id}`,
        amount,
        date: TODAY,
        item_type: amount > 0 ? "Charge" : "Credit",
      }),
    );
    bill.total_due += amount;
    dbOf(s).bills.push(bill);
    c.bill_ids.push(a.new_bill_id as string);
    line.status = LineStatus.SUSPENDED;
    line.suspension_start_date = TODAY;
    if (a.contract_ended) line.contract_end_date = lastMonthEnd;
    return `Line ${pyStr(a.line_id)} suspended for unpaid bill ${pyStr(a.new_bill_id)}. Contract ended: ${pyRepr(a.contract_ended)}`;
  }),
  fn("assert_data_refueling_amount", ["customer_id", "line_id", "expected_amount"], (s, a) => {
    const line = getTargetLine(s, a.customer_id, a.line_id);
    return Math.abs(line.data_refueling_gb - requireNumber(a.expected_amount, "-", "float")) < 1e-6;
  }),
  fn("assert_line_status", ["customer_id", "line_id", "expected_status"], (s, a) => {
    return getTargetLine(s, a.customer_id, a.line_id).status === a.expected_status;
  }),
  fn("assert_overdue_bill_exists", ["customer_id", "overdue_bill_id"], (s, a) => {
    const c = getCustomerById(s, a.customer_id);
    if (!c.bill_ids.includes(a.overdue_bill_id as string))
      throw valueError(`Overdue bill ${pyStr(a.overdue_bill_id)} not found`);
    if (getBillById(s, a.overdue_bill_id).status !== BillStatus.OVERDUE)
      throw valueError(`Overdue bill ${pyStr(a.overdue_bill_id)} is not overdue`);
    return true;
  }),
  fn("assert_no_overdue_bill", ["overdue_bill_id"], (s, a) => {
    const bill = dbOf(s).bills.find((b) => b.bill_id === a.overdue_bill_id);
    return !bill || bill.status === BillStatus.PAID;
  }),
];

export const telecomToolkit: Toolkit<Tau2State> = { className: "TelecomTools", tools, functions };

/** Upstream `TelecomEnvironment.sync_tools`. Throws ValueError as upstream when the scenario is broken. */
export function syncTelecom(s: Tau2State): void {
  const user = s.userDb as unknown as TelecomUserDBV | null;
  const sur = user?.surroundings;
  if (!sur || sur.phone_number === null) return;
  const phone = sur.phone_number;
  const line = getLineByPhone(s, phone);
  sur.line_active = line.status === LineStatus.ACTIVE;
  sur.roaming_allowed = Boolean(line.roaming_enabled);
  const plan = getPlanById(s, line.plan_id);
  sur.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb;
  if (sur.payment_request !== null && sur.payment_request.paid) {
    getBillById(s, sur.payment_request.bill_id).status = BillStatus.PAID;
    sur.payment_request = null;
  }
  if (sur.payment_request === null) {
    const bills = billsAwaitingPayment(s, getCustomerByPhone(s, phone));
    const bill = bills[0];
    if (bill)
      sur.payment_request = pyConstruct(PaymentRequest, {
        bill_id: bill.bill_id,
        amount_due: bill.total_due,
      });
  }
}
