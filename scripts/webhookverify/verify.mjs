// Verifies captured webhook deliveries with the npm `standardwebhooks`
// package, code this repository did not write.
//
//   node verify.mjs deliveries.json
//
// deliveries.json: [{secret, headers: {"webhook-id", "webhook-timestamp",
// "webhook-signature"}, body}], body being the exact string received.
// Run from a directory where `standardwebhooks` is installed (CI copies
// this file next to its node_modules). Exits 1 if any delivery fails to
// verify, printing which.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const file = process.argv[2];
if (!file) {
  console.error("usage: node verify.mjs deliveries.json");
  process.exit(2);
}
const deliveries = JSON.parse(readFileSync(file, "utf8"));
let failed = 0;
for (const [i, d] of deliveries.entries()) {
  try {
    const payload = new Webhook(d.secret).verify(d.body, d.headers);
    if (payload.id !== d.headers["webhook-id"]) {
      throw new Error(`payload id ${payload.id} is not webhook-id ${d.headers["webhook-id"]}`);
    }
  } catch (err) {
    failed++;
    console.error(`delivery ${i} (${d.headers["webhook-id"]}): ${err.message}`);
  }
}
// A tampered body must not verify: proves the check is not vacuous.
if (deliveries.length > 0) {
  const d = deliveries[0];
  try {
    new Webhook(d.secret).verify(d.body + " ", d.headers);
    failed++;
    console.error("a tampered body verified");
  } catch {
    // expected
  }
}
console.log(`${deliveries.length - failed} of ${deliveries.length} deliveries verified with standardwebhooks`);
process.exit(failed ? 1 : 0);
