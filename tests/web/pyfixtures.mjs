// Cases with the Python core's answers, made by tests/web/fixtures.py for each run of the node tests (a new
// seed every run, printed on failure), so no expected value is copied by hand.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VENV_PYTHON = ROOT + ".venv/bin/python";

export function python() {
  return process.env.PYTHON || (existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3");
}

/** The JSON that `python tests/web/fixtures.py <kind> <seed> [args]` prints. */
export function pyFixture(kind, seed = Math.floor(Math.random() * 2 ** 31), ...args) {
  const out = execFileSync(python(), [ROOT + "tests/web/fixtures.py", kind, String(seed), ...args.map(String)], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
    encoding: "utf-8",
  });
  return JSON.parse(out);
}

export function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
