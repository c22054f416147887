import { Backend, m, type MethodSpec } from "./backend.js";
import { longContextValue, type LongContextData } from "./long-context.js";
import { add, compare, dict, div, mul, num, PyError, sub, toFloat, truthy } from "./py-ops.js";
import { PyRandom } from "./py-random.js";
import {
  PyFloat,
  pyEqual,
  pyRepr,
  pyStr,
  type PyDict,
  type PyValue,
  dictEntries,
  dictValues,
} from "./py-value.js";

/**
 * Port of upstream's `VehicleControlAPI` (`vehicle_control.py`). Speed and outside-temperature
 * readings come from CPython's `random.Random(random_seed)` (default 141053) via `uniform`, so
 * they equal upstream's.
 */
const f = (x: number) => new PyFloat(x);
const MAX_FUEL = 50;
const MIN_FUEL = f(0.0);
const MPG = f(20.0);

const err = (msg: PyValue): PyDict => dict([["error", msg]]);

const DISTANCES: Array<[string, string, number]> = [
  ["83214", "74532", 750],
  ["56108", "62947", 320],
  ["71354", "83462", 450],
  ["47329", "52013", 290],
  ["69238", "51479", 630],
  ["94016", "83214", 980],
  ["94016", "94704", 600],
  ["94704", "08540", 2550],
  ["94016", "08540", 1950],
  ["62947", "47329", 1053],
  ["94016", "62947", 780],
  ["74532", "94016", 880],
];
const ZIPCODES: Record<string, string> = {
  Rivermist: "83214",
  Stonebrook: "74532",
  Maplecrest: "56108",
  Silverpine: "62947",
  Shadowridge: "71354",
  "Sunset Valley": "83462",
  Oakendale: "47329",
  Willowbend: "52013",
  "Crescent Hollow": "69238",
  Autumnville: "51479",
  "San Francisco": "94016",
};

export class VehicleControlAPI extends Backend {
  readonly className = "VehicleControlAPI";
  fuelLevel: PyValue = f(0);
  batteryVoltage: PyValue = f(12.6);
  engine_state: PyValue = "stopped";
  remainingUnlockedDoors: PyValue = 4;
  doorStatus: PyDict = dict([]);
  acTemperature: PyValue = f(25);
  fanSpeed: PyValue = 50;
  acMode: PyValue = "auto";
  humidityLevel: PyValue = f(50);
  headLightStatus: PyValue = "off";
  parkingBrakeStatus: PyValue = "released";
  brakePedalStatus: PyValue = "released";
  distanceToNextVehicle: PyValue = f(50);
  cruiseStatus: PyValue = "inactive";
  destination: PyValue = "None";
  frontLeftTirePressure: PyValue = f(32);
  frontRightTirePressure: PyValue = f(32);
  rearLeftTirePressure: PyValue = f(30);
  rearRightTirePressure: PyValue = f(30);
  long_context = false;
  private parkingBrakeForce: PyValue = f(0);
  private slopeAngle: PyValue = f(0);
  private brakePedalForce: PyValue = f(0);
  private random = new PyRandom(141053);
  private cached?: Record<string, MethodSpec>;

  constructor(private readonly longContextData?: LongContextData) {
    super();
  }

  loadScenario(config: PyDict, longContext: boolean): void {
    const get = (k: string, d: PyValue) => (k in config ? config[k]! : d);
    this.random = new PyRandom(Number(get("random_seed", 141053)));
    this.fuelLevel = get("fuelLevel", f(0));
    this.batteryVoltage = get("batteryVoltage", f(12.6));
    this.engine_state = get("engineState", "stopped");
    this.doorStatus = get(
      "doorStatus",
      dict([
        ["driver", "unlocked"],
        ["passenger", "unlocked"],
        ["rear_left", "unlocked"],
        ["rear_right", "unlocked"],
      ]),
    ) as PyDict;
    this.remainingUnlockedDoors = 4 - dictValues(this.doorStatus).filter((s) => s === "locked").length;
    this.acTemperature = get("acTemperature", f(25));
    this.fanSpeed = get("fanSpeed", 50);
    this.acMode = get("acMode", "auto");
    this.humidityLevel = get("humidityLevel", f(50));
    this.headLightStatus = get("headLightStatus", "off");
    this.parkingBrakeStatus = get("parkingBrakeStatus", "released");
    this.parkingBrakeForce = get("parkingBrakeForce", f(0));
    this.slopeAngle = get("slopeAngle", f(0));
    this.brakePedalStatus = get("brakePedalStatus", "released");
    this.brakePedalForce = get("brakePedalForce", f(0));
    this.distanceToNextVehicle = get("distanceToNextVehicle", f(50));
    this.cruiseStatus = get("cruiseStatus", "inactive");
    this.destination = get("destination", "None");
    this.frontLeftTirePressure = get("frontLeftTirePressure", f(32));
    this.frontRightTirePressure = get("frontRightTirePressure", f(32));
    this.rearLeftTirePressure = get("rearLeftTirePressure", f(30));
    this.rearRightTirePressure = get("rearRightTirePressure", f(30));
    this.long_context = longContext;
  }

  publicState(): Record<string, PyValue> {
    return {
      fuelLevel: this.fuelLevel,
      batteryVoltage: this.batteryVoltage,
      engine_state: this.engine_state,
      remainingUnlockedDoors: this.remainingUnlockedDoors,
      doorStatus: this.doorStatus,
      acTemperature: this.acTemperature,
      fanSpeed: this.fanSpeed,
      acMode: this.acMode,
      humidityLevel: this.humidityLevel,
      headLightStatus: this.headLightStatus,
      parkingBrakeStatus: this.parkingBrakeStatus,
      brakePedalStatus: this.brakePedalStatus,
      distanceToNextVehicle: this.distanceToNextVehicle,
      cruiseStatus: this.cruiseStatus,
      destination: this.destination,
      frontLeftTirePressure: this.frontLeftTirePressure,
      frontRightTirePressure: this.frontRightTirePressure,
      rearLeftTirePressure: this.rearLeftTirePressure,
      rearRightTirePressure: this.rearRightTirePressure,
      long_context: this.long_context,
    };
  }

  private lc(name: string): PyValue {
    return longContextValue(this.longContextData, name);
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private door(d: PyValue): string {
    if (typeof d !== "string" || !(d in this.doorStatus)) throw new PyError("KeyError", pyRepr(d));
    return d;
  }

  private build(): Record<string, MethodSpec> {
    return {
      startEngine: m([["ignitionMode"]], ({ ignitionMode }) => {
        if (ignitionMode === "STOP") this.engine_state = "stopped";
        if (compare(this.remainingUnlockedDoors, 0, ">")) {
          const unlocked = dictEntries(this.doorStatus)
            .filter(([, s]) => s === "unlocked")
            .map(([d]) => d);
          return err(
            `All doors must be locked before starting the engine. Here are the unlocked doors: ${unlocked.join(", ")}`,
          );
        }
        if (this.brakePedalStatus !== "pressed")
          return err("Brake pedal needs to be pressed when starting the engine.");
        if (!pyEqual(this.brakePedalForce, f(1000)))
          return err("Must press the brake fully before starting the engine.");
        if (compare(this.fuelLevel, MIN_FUEL, "<")) return err("Fuel tank is empty.");
        if (ignitionMode === "START") this.engine_state = "running";
        else return err("Invalid ignition mode.");
        return dict([
          ["engineState", this.engine_state],
          ["fuelLevel", this.fuelLevel],
          ["batteryVoltage", this.batteryVoltage],
        ]);
      }),
      fillFuelTank: m([["fuelAmount"]], ({ fuelAmount }) => {
        if (compare(fuelAmount!, 0, "<")) return err("Fuel amount cannot be negative.");
        if (compare(add(this.fuelLevel, fuelAmount!), MAX_FUEL, ">"))
          return err("Cannot fill gas above the tank capacity.");
        if (compare(add(this.fuelLevel, fuelAmount!), MIN_FUEL, "<"))
          return err("Fuel tank is empty. Min fuel level is 0 gallons.");
        this.fuelLevel = add(this.fuelLevel, fuelAmount!);
        return dict([["fuelLevel", this.fuelLevel]]);
      }),
      lockDoors: m([["unlock"], ["door"]], ({ unlock, door }) => {
        const want = truthy(unlock!) ? "unlocked" : "locked";
        for (const d of door as PyValue[]) {
          const k = this.door(d);
          if (this.doorStatus[k] === want) continue;
          this.doorStatus[k] = want;
          this.remainingUnlockedDoors = add(this.remainingUnlockedDoors, want === "unlocked" ? 1 : -1);
        }
        return dict([
          ["lockStatus", want],
          ["remainingUnlockedDoors", this.remainingUnlockedDoors],
        ]);
      }),
      adjustClimateControl: m(
        [["temperature"], ["unit", "celsius"], ["fanSpeed", 50], ["mode", "auto"]],
        ({ temperature, unit, fanSpeed, mode }) => {
          if (!(compare(0, fanSpeed!, "<=") && compare(fanSpeed!, 100, "<=")))
            return err("Fan speed must be between 0 and 100.");
          this.acTemperature = temperature!;
          if (unit === "fahrenheit") this.acTemperature = div(mul(sub(temperature!, 32), 5), 9);
          this.fanSpeed = fanSpeed!;
          this.acMode = mode!;
          return dict([
            ["currentACTemperature", temperature!],
            ["climateMode", mode!],
            ["humidityLevel", this.humidityLevel],
          ]);
        },
      ),
      get_outside_temperature_from_google: m([], () => {
        const t = f(this.random.uniform(-10.0, 40.0));
        if (this.long_context) {
          const weather = this.lc("LONG_WEATHER_EXTENSION") as PyDict;
          weather.outsideTemperature = t;
          return weather;
        }
        return dict([["outsideTemperature", t]]);
      }),
      get_outside_temperature_from_weather_com: m([], () => err(404)),
      setHeadlights: m([["mode"]], ({ mode }) => {
        if (!["on", "off", "auto"].includes(mode as string)) return err("Invalid headlight mode.");
        this.headLightStatus = mode === "on" ? "on" : "off";
        return dict([["headlightStatus", this.headLightStatus]]);
      }),
      displayCarStatus: m([["option"]], ({ option }) => {
        const s = dict([]);
        if (this.long_context) s.metadata = this.lc("CAR_STATUS_METADATA_EXTENSION");
        switch (option) {
          case "fuel":
            s.fuelLevel = this.fuelLevel;
            break;
          case "battery":
            s.batteryVoltage = this.batteryVoltage;
            break;
          case "doors":
            s.doorStatus = this.doorStatus;
            break;
          case "climate":
            s.currentACTemperature = this.acTemperature;
            s.fanSpeed = this.fanSpeed;
            s.climateMode = this.acMode;
            s.humidityLevel = this.humidityLevel;
            break;
          case "headlights":
            s.headlightStatus = this.headLightStatus;
            break;
          case "parkingBrake":
            s.parkingBrakeStatus = this.parkingBrakeStatus;
            s.parkingBrakeForce = this.parkingBrakeForce;
            s.slopeAngle = this.slopeAngle;
            break;
          case "brakePedal":
            s.brakePedalStatus = this.brakePedalStatus;
            s.brakePedalForce = this.brakePedalForce;
            break;
          case "engine":
            s.engineState = this.engine_state;
            break;
          default:
            s.error = "Invalid option";
        }
        return s;
      }),
      activateParkingBrake: m([["mode"]], ({ mode }) => {
        if (mode !== "engage" && mode !== "release") return err("Invalid mode");
        const engage = mode === "engage";
        this.parkingBrakeStatus = engage ? "engaged" : "released";
        this.parkingBrakeForce = f(engage ? 500 : 0);
        this.slopeAngle = f(10);
        const out = dict([]);
        if (this.long_context) out.parkingBrakeInstruction = this.lc("PARKING_BRAKE_INSTRUCTION");
        out.parkingBrakeStatus = this.parkingBrakeStatus;
        out._parkingBrakeForce = this.parkingBrakeForce;
        out._slopeAngle = f(10);
        return out;
      }),
      pressBrakePedal: m([["pedalPosition"]], ({ pedalPosition }) => {
        if (!(compare(0, pedalPosition!, "<=") && compare(pedalPosition!, 1, "<="))) {
          return err("Pedal position must be between 0 and 1.");
        }
        if (num(pedalPosition!) === 0) {
          this.brakePedalStatus = "released";
          this.brakePedalForce = f(0);
          return dict([
            ["brakePedalStatus", "released"],
            ["brakePedalForce", f(0)],
          ]);
        }
        const force = mul(pedalPosition!, 1000);
        this.brakePedalStatus = "pressed";
        this.brakePedalForce = force;
        return dict([
          ["brakePedalStatus", "pressed"],
          ["brakePedalForce", toFloat(force)],
        ]);
      }),
      releaseBrakePedal: m([], () => {
        this.brakePedalStatus = "released";
        this.brakePedalForce = f(0);
        return dict([
          ["brakePedalStatus", "released"],
          ["brakePedalForce", f(0)],
        ]);
      }),
      setCruiseControl: m(
        [["speed"], ["activate"], ["distanceToNextVehicle"]],
        ({ speed, activate, distanceToNextVehicle }) => {
          const distance = toFloat(distanceToNextVehicle!);
          const sp = toFloat(speed!);
          if (this.engine_state === "stopped")
            return err("Start the engine before activating the cruise control.");
          this.distanceToNextVehicle = distance;
          if (truthy(activate!)) {
            const v = sp.value;
            // Python's float % keeps the divisor's sign; 5 > 0 so a plain remainder test suffices.
            if (v < 0 || v > 120 || ((v % 5) + 5) % 5 !== 0) return err("Invalid speed");
            this.cruiseStatus = "active";
            return dict([
              ["cruiseStatus", "active"],
              ["currentSpeed", sp],
              ["distanceToNextVehicle", distance],
            ]);
          }
          this.cruiseStatus = "inactive";
          return dict([
            ["cruiseStatus", "inactive"],
            ["currentSpeed", sp],
            ["distanceToNextVehicle", distance],
          ]);
        },
      ),
      get_current_speed: m([], () => dict([["currentSpeed", f(this.random.uniform(0.0, 120.0))]])),
      display_log: m([["messages"]], ({ messages }) => dict([["log", messages!]])),
      estimate_drive_feasibility_by_mileage: m([["distance"]], ({ distance }) =>
        dict([["canDrive", !compare(mul(this.fuelLevel, MPG), distance!, "<")]]),
      ),
      liter_to_gallon: m([["liter"]], ({ liter }) => dict([["gallon", mul(liter!, f(0.264172))]])),
      gallon_to_liter: m([["gallon"]], ({ gallon }) => dict([["liter", mul(gallon!, f(3.78541))]])),
      estimate_distance: m([["cityA"], ["cityB"]], ({ cityA, cityB }) => {
        const hit = DISTANCES.find(([a, b]) => (cityA === a && cityB === b) || (cityA === b && cityB === a));
        const out = hit ? dict([["distance", f(hit[2])]]) : err("distance not found in database.");
        if (this.long_context) out.intermediaryCities = this.lc("INTERMEDIARY_CITIES");
        return out;
      }),
      get_zipcode_based_on_city: m([["city"]], ({ city }) =>
        dict([
          ["zipcode", typeof city === "string" && Object.hasOwn(ZIPCODES, city) ? ZIPCODES[city]! : "00000"],
        ]),
      ),
      set_navigation: m([["destination"]], ({ destination }) => {
        this.destination = destination!;
        return dict([["status", "Navigating to " + pyStr(destination!)]]);
      }),
      check_tire_pressure: m([], () => {
        const total = add(
          add(add(this.frontLeftTirePressure, this.frontRightTirePressure), this.rearLeftTirePressure),
          this.rearRightTirePressure,
        );
        const avg = div(total, 4);
        return dict([
          ["frontLeftTirePressure", this.frontLeftTirePressure],
          ["frontRightTirePressure", this.frontRightTirePressure],
          ["rearLeftTirePressure", this.rearLeftTirePressure],
          ["rearRightTirePressure", this.rearRightTirePressure],
          ["healthy_tire_pressure", compare(30, avg, "<=") && compare(avg, 35, "<=")],
          ["car_info", this.long_context ? this.lc("CAR_STATUS_METADATA_EXTENSION") : dict([])],
        ]);
      }),
      find_nearest_tire_shop: m([], () => dict([["shopLocation", "456 Oakwood Avenue, Rivermist, 83214"]])),
    };
  }
}
