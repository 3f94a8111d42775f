// The console's browser walks (issue 27, CONTRACT.md section 20), run by
// TestBrowserWalks in internal/httpapi/console/browsertest: Debian's
// Chromium, driven by Playwright's playwright-core, walks the pages as
// people do, by their visible labels, with axe-core checking every page it
// meets for serious or critical accessibility violations.
//
// Settings come in BROWSERCHECK_CONFIG (JSON, written by the Go test):
// base, chromium, screenshots (a folder, or ""), and the people and
// listings the Go test made. It prints one line per step and exits 1 on
// the first failure, with what the page said.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const cfg = JSON.parse(process.env.BROWSERCHECK_CONFIG);
const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const browser = await chromium.launch({
  executablePath: cfg.chromium,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});

const checked = new Map(); // page path pattern -> violations found
const refusedOnPurpose = new Set(); // addresses visited to see their error page
const problems = [];

const started = Date.now();
function step(msg) {
  console.log(`· ${((Date.now() - started) / 1000).toFixed(1)}s ${msg}`);
}

function fail(msg) {
  throw new Error(msg);
}

// A person: a browser context of their own (cookies), a page, and the
// console errors and CSP reports it met.
async function person(name, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ baseURL: cfg.base, viewport });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" && !refusedOnPurpose.has(page.url())) {
      problems.push(`${name} on ${page.url()}: console error: ${m.text()}`);
    }
  });
  page.on("pageerror", (e) => problems.push(`${name} on ${page.url()}: ${e.message}`));
  return { name, context, page };
}

// axe checks the page as it stands (when cfg.audit: the Go test asks on
// one engine, the pages being the same on both): no violation of impact serious or
// critical. It runs through the DevTools protocol (page.evaluate), which the
// page's CSP does not govern, so the policy stays as served.
async function audit(page, label) {
  const key = label || new URL(page.url()).pathname.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "{id}");
  if (!cfg.audit || checked.has(key)) return;
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  const bad = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  checked.set(key, bad.length);
  for (const v of bad) {
    problems.push(`axe on ${key}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(", ")}`);
  }
}

// visit opens path, expects status, audits it.
async function visit(page, pathname, { status = 200, label } = {}) {
  if (status !== 200) refusedOnPurpose.add(cfg.base + pathname);
  const resp = await page.goto(pathname);
  if (resp.status() !== status) {
    fail(`${pathname}: status ${resp.status()}, want ${status}; page: ${(await page.innerText("main").catch(() => "")).slice(0, 500)}`);
  }
  await audit(page, label);
  return resp;
}

// settled waits for the page a click led to and audits it.
async function settled(page, label) {
  await page.waitForLoadState("load");
  await audit(page, label);
}

async function shot(page, name) {
  if (!cfg.screenshots) return;
  await page.screenshot({ path: path.join(cfg.screenshots, name + ".png"), fullPage: true });
}

async function expectText(page, text) {
  const body = await page.innerText("body");
  if (!body.includes(text)) {
    fail(`${page.url()}: no "${text}" on the page; it says:\n${body.slice(0, 1500)}`);
  }
}

async function api(method, p, body, headers = {}) {
  const resp = await fetch(cfg.base + p, {
    method,
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await resp.json().catch(() => ({}));
  return { status: resp.status, json };
}

async function signIn(page, who, next) {
  await visit(page, "/signin" + (next ? "?next=" + encodeURIComponent(next) : ""));
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await settled(page);
}

// The owner: signs up, creates a key with caps, sets an approval
// threshold; the agent (over the API) buys above it and waits; the owner
// approves in the browser and the order appears.
async function ownerWalk() {
  const { page } = await person("owner");
  await visit(page, "/", { label: "/ (guest)" });
  await shot(page, "home");
  await page.getByRole("link", { name: "Sign up" }).first().click();
  await settled(page);
  await page.getByLabel("Display name").fill("Olive Owner");
  await page.getByLabel("Email").fill(cfg.owner.email);
  await page.getByLabel("Password").fill(cfg.owner.password);
  await page.getByLabel("I accept the terms of service").check();
  await page.getByRole("button", { name: "Sign up" }).click();
  await settled(page, "/ (signed in)");
  await expectText(page, "Sign out");
  step("owner signed up");

  // The agent's purchases need a verified owner with a card: done over the
  // API with the owner's password, as the owner's own script would.
  const login = await api("POST", "/api/v1/auth/login", { email: cfg.owner.email, password: cfg.owner.password });
  if (login.status !== 200) fail("API sign-in: " + JSON.stringify(login.json));
  const bearer = { Authorization: "Bearer " + login.json.data.accessToken };
  const connect = await api("POST", "/api/v1/seller/connect", undefined, bearer);
  const onboarding = await fetch(connect.json.data.onboardingUrl, { method: "POST", headers: { Accept: "application/json" } });
  if (!onboarding.ok) fail("sandbox verification: " + onboarding.status);
  const setup = await api("POST", "/api/v1/payment-methods/setup", undefined, bearer);
  const card = await api("POST", "/api/v1/payment-methods/confirm", { setupIntentId: setup.json.data.setupIntentId, paymentMethod: "pm_card_visa" }, bearer);
  if (card.status !== 201) fail("saving a card: " + JSON.stringify(card.json));

  await page.getByRole("link", { name: "Agents" }).click();
  await settled(page);
  const keyForm = page.locator("form", { has: page.getByRole("button", { name: "Create key" }) });
  await keyForm.getByLabel("Label").fill("Shopping agent");
  await keyForm.getByLabel("Scope").selectOption("buy_only");
  await keyForm.getByLabel("Daily limit").fill("300.00");
  await keyForm.getByLabel("I accept the agent terms").check();
  await keyForm.getByRole("button", { name: "Create key" }).click();
  await settled(page, "/agents (new key)");
  const secret = (await page.locator("code.secret").innerText()).trim();
  if (!secret.startsWith("mk_")) fail("no key secret shown: " + secret);
  step("key created, secret shown once");

  const caps = page.locator("form", { has: page.getByRole("button", { name: "Save caps" }) });
  await caps.getByLabel("Per-transaction limit").fill("150.00");
  await caps.getByLabel("Approval threshold").fill("20.00");
  await caps.getByRole("button", { name: "Save caps" }).click();
  await settled(page);
  if ((await caps.getByLabel("Approval threshold").inputValue()) !== "20.00") fail("the threshold was not kept");
  await shot(page, "agents");
  step("caps set: per purchase 150.00, approval above 20.00");

  const purchase = await api("POST", "/api/v1/agent/purchase",
    { listingId: cfg.agentListing.id, maxPrice: cfg.agentListing.price + 1000, shippingAddress: cfg.address }, { "X-Agent-Key": secret });
  if (purchase.status !== 202 || purchase.json.error?.code !== "APPROVAL_REQUIRED") fail("agent purchase: " + JSON.stringify(purchase.json));
  const orderId = purchase.json.error.details.orderId;
  step("the agent's purchase waits for approval");

  await page.getByRole("link", { name: "Approvals" }).click();
  await settled(page);
  await expectText(page, cfg.agentListing.title);
  await shot(page, "approvals");
  await page.getByRole("button", { name: "Approve" }).first().click();
  await settled(page);
  await expectText(page, "approved");

  await page.getByRole("link", { name: "Orders" }).click();
  await settled(page);
  await expectText(page, cfg.agentListing.title);
  await page.getByRole("link", { name: cfg.agentListing.title }).first().click();
  await settled(page, "/orders/{id}");
  if (!page.url().includes(orderId)) fail(`the order link led to ${page.url()}, not order ${orderId}`);
  step("approved in the browser; the order appears");

  // The key's own page with the authorization record.
  await page.getByRole("link", { name: "Agents" }).click();
  await page.getByRole("link", { name: "Shopping agent" }).click();
  await settled(page, "/agents/keys/{id}");
  await expectText(page, "Authorization records");
  await expectText(page, orderId);
  return { bearer };
}

// The buyer: finds a listing by search and buys it through the hosted
// checkout.
async function buyerWalk() {
  const { page } = await person("buyer");
  await signIn(page, cfg.buyer);
  await page.getByRole("link", { name: "Browse" }).click();
  await settled(page);
  await page.getByRole("searchbox").first().fill(cfg.buyListing.word);
  await page.getByRole("button", { name: "Search" }).click();
  await settled(page, "/search?q");
  await shot(page, "search");
  await page.getByRole("link", { name: cfg.buyListing.title }).first().click();
  await settled(page, "/listings/{id}");
  await shot(page, "listing");
  await page.getByRole("button", { name: "Buy now" }).click();
  await settled(page, "buy");
  if (!page.url().includes("/checkout/")) {
    await page.getByLabel("Full name").fill("Bea Buyer");
    await page.getByLabel("Street address").fill("1 Main St");
    await page.getByLabel("City").fill("Portland");
    await page.getByLabel("State").fill("OR");
    await page.getByLabel("Postal code").fill("97201");
    await page.getByRole("button", { name: "Continue to payment" }).click();
    await settled(page, "checkout");
  }
  await shot(page, "checkout");
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay/ }).click();
  await settled(page, "checkout (paid)");
  await expectText(page, "Payment received");
  step("buyer found the listing by search and paid on the hosted checkout");
}

// Keyboard only: the same path with Tab and Enter, no pointer.
async function keyboardWalk() {
  const { page } = await person("keyboard buyer");
  await signIn(page, cfg.keyboardBuyer);
  await page.goto("/listings/" + cfg.keyboardListing.id);
  await tabTo(page, { text: "Buy now" });
  await enter(page);
  if (!page.url().includes("/checkout/")) {
    for (const [label, value] of [["Full name", "Kay Board"], ["Street address", "2 Main St"], ["City", "Portland"], ["State", "OR"], ["Postal code", "97201"]]) {
      await tabTo(page, { label });
      await page.keyboard.type(value);
    }
    await tabTo(page, { text: "Continue to payment" });
    await enter(page);
  }
  await tabTo(page, { name: "cardNumber" });
  await page.keyboard.type("4242424242424242");
  await enter(page);
  await expectText(page, "Payment received");
  step("keyboard only: listing, Buy now, address, card, paid");
}

// enter presses Enter on the focused control and waits for the page it
// leads to.
async function enter(page) {
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  await audit(page);
}

// tabTo presses Tab until the focused element is the one wanted (by its
// text, its label's text or its name), failing after 80 presses.
async function tabTo(page, want) {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    const ok = await page.evaluate((w) => {
      const el = document.activeElement;
      if (!el) return false;
      if (w.text) return el.textContent.trim() === w.text;
      if (w.label) return !!el.labels && [...el.labels].some((l) => l.textContent.trim().startsWith(w.label));
      return el.getAttribute("name") === w.name;
    }, want);
    if (ok) return;
  }
  fail(`${page.url()}: Tab never reached ${JSON.stringify(want)}`);
}

// Without JavaScript: the buy path works on HTML forms and links alone.
async function noScriptWalk() {
  const context = await browser.newContext({ baseURL: cfg.base, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("/search?q=" + encodeURIComponent(cfg.noScriptListing.word));
  await page.getByRole("link", { name: cfg.noScriptListing.title }).first().click();
  await page.getByRole("link", { name: "Buy now" }).click(); // a guest's Buy now leads to "Sign in"
  await page.getByLabel("Email").fill(cfg.noScriptBuyer.email);
  await page.getByLabel("Password").fill(cfg.noScriptBuyer.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("load");
  if (!page.url().includes("/listings/" + cfg.noScriptListing.id)) fail("sign-in did not return to the listing: " + page.url());
  await page.getByRole("button", { name: "Buy now" }).click();
  await page.waitForLoadState("load");
  if (!page.url().includes("/checkout/")) {
    await page.getByLabel("Full name").fill("Nora Script");
    await page.getByLabel("Street address").fill("3 Main St");
    await page.getByLabel("City").fill("Portland");
    await page.getByLabel("State").fill("OR");
    await page.getByLabel("Postal code").fill("97201");
    await page.getByRole("button", { name: "Continue to payment" }).click();
    await page.waitForLoadState("load");
  }
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay/ }).click();
  await page.waitForLoadState("load");
  await expectText(page, "Payment received");
  await page.goto("/orders");
  await expectText(page, cfg.noScriptListing.title);
  step("without JavaScript: search, sign in, Buy now, pay, the order listed");
  await context.close();
}

// The seller ships the order the buyer paid for, with a label.
async function sellerWalk() {
  const { page } = await person("seller");
  await signIn(page, cfg.seller);
  await page.getByRole("link", { name: "Settings" }).click();
  await settled(page);
  const shipFrom = page.locator("form", { has: page.getByRole("button", { name: "Save ship-from address" }) });
  await shipFrom.getByLabel("Name").fill("Sam's Shop");
  await shipFrom.getByLabel("Address line 1").fill("9 Dock Rd");
  await shipFrom.getByLabel("City").fill("Seattle");
  await shipFrom.getByLabel("State").fill("WA");
  await shipFrom.getByLabel("ZIP or postcode").fill("98101");
  await shipFrom.getByRole("button", { name: "Save ship-from address" }).click();
  await settled(page, "/settings (saved)");
  await expectText(page, "ship-from address is saved");
  await page.getByRole("link", { name: "Orders" }).click();
  await settled(page);
  await page.getByRole("link", { name: cfg.buyListing.title }).first().click();
  await settled(page, "/orders/{id} (seller)");
  await page.getByRole("button", { name: "Ship" }).first().click();
  await settled(page, "/orders/{id} (shipped)");
  await expectText(page, "shipped");
  await shot(page, "order");
  step("seller shipped it with a label");

  // A new listing from photos and a brief, through the AI step: the page
  // waits (a progress bar) until the listing is written, then the review.
  await page.getByRole("link", { name: "Selling" }).click();
  await settled(page);
  await page.getByRole("link", { name: "Create a listing" }).click();
  await settled(page);
  await page.getByLabel("Photos").setInputFiles(cfg.photos);
  await page.getByLabel("Describe the item").fill("Green ceramic planter with a drainage hole, 20 cm across");
  await page.getByLabel("Price").fill("18.50");
  await page.getByRole("button", { name: "Create listing" }).click();
  await page.waitForLoadState("load");
  await page.getByRole("button", { name: "Save changes" }).first().waitFor({ timeout: 20000 });
  await settled(page, "/selling/{id}");
  await shot(page, "selling");
  await expectText(page, "Planter");
  step("seller created a listing from a photo and a brief");
  // The buyer's question, answered in the thread.
  await page.getByRole("link", { name: "Messages" }).click();
  await settled(page);
  await page.getByRole("link", { name: cfg.buyListing.title }).first().click();
  await settled(page, "/messages/{id}");
  await page.getByLabel("Reply").fill("Yes, it sits snugly.");
  await page.getByRole("button", { name: /^(Send|Reply)/ }).first().click();
  await settled(page);
  await expectText(page, "Yes, it sits snugly.");
  step("seller answered a buyer's message");
  for (const p of ["/offers", "/payouts", "/watching"]) {
    await visit(page, p);
  }
  await visit(page, "/orders/01a00000-0000-7000-8000-000000000000", { status: 404, label: "a page not found" });
}

// The admin suspends a user.
async function adminWalk() {
  const { page } = await person("admin");
  await signIn(page, cfg.admin);
  await page.getByRole("link", { name: "Admin" }).click();
  await settled(page);
  await page.getByRole("link", { name: "Users" }).first().click();
  await settled(page);
  await page.getByLabel("Search").fill(cfg.suspect.email);
  await page.getByRole("button", { name: "Find users" }).click();
  await settled(page, "/admin/users?search");
  await page.getByRole("link", { name: cfg.suspect.name }).first().click();
  await settled(page, "/admin/users/{id}");
  await page.getByLabel("Reason to suspend").fill("spam listings");
  await page.getByRole("button", { name: "Suspend" }).click();
  await settled(page);
  await expectText(page, "suspended");
  await shot(page, "admin-user");
  step("admin suspended a user");
  for (const p of ["/admin/listings", "/admin/config", "/admin/audit", "/admin/finance"]) {
    await visit(page, p);
  }
  await visit(page, "/admin/disputes");
  await page.locator('main a[href^="/admin/disputes/"]').first().click();
  await settled(page, "/admin/disputes/{id}");
  await expectText(page, "One shelf arrived split");
}

// A phone-sized look at the front page and a listing, for the layout.
async function phoneWalk() {
  const { page } = await person("phone", { width: 390, height: 844 });
  await visit(page, "/listings/" + cfg.buyListing.id, { label: "/listings/{id} (phone)" });
  await shot(page, "listing-phone");
  for (const p of ["/signin", "/signup", "/search"]) {
    await visit(page, p);
  }
}

const walks = { noscript: noScriptWalk, owner: ownerWalk, buyer: buyerWalk, keyboard: keyboardWalk, seller: sellerWalk, admin: adminWalk, phone: phoneWalk };
// The check itself must be able to fail: on a page with an image without
// alt text and an input without a label, axe must report both.
async function auditSelfCheck() {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html lang="en"><title>x</title><main><img src="data:,"><input></main></html>');
  await page.evaluate(axeSource);
  const ids = await page.evaluate(async () => (await axe.run(document)).violations.map((v) => v.id)); // eslint-disable-line no-undef
  await page.close();
  for (const id of ["image-alt", "label"]) {
    if (!ids.includes(id)) fail(`axe did not report ${id} on a page made to have it (it reported ${ids.join(", ")})`);
  }
}

let status = 0;
try {
  if (cfg.audit) await auditSelfCheck();
  for (const name of cfg.walks) {
    step(`walk: ${name}`);
    await walks[name]();
  }
} catch (e) {
  console.log("FAILED: " + e.message);
  status = 1;
}
if (cfg.audit) console.log(`axe checked ${checked.size} pages: ${[...checked.keys()].join(", ")}`);
for (const p of problems) {
  console.log("PROBLEM: " + p);
  status = 1;
}
await browser.close();
process.exit(status);
