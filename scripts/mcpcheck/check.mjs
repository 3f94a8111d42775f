// check.mjs drives the marketplace's MCP server with the official
// TypeScript SDK client (@modelcontextprotocol/sdk), code we did not
// write: over Streamable HTTP (MCPCHECK_TRANSPORT=http, MCPCHECK_URL) or
// over stdio through `marketplace mcp` (MCPCHECK_TRANSPORT=stdio,
// MCPCHECK_BINARY, MCPCHECK_URL). It lists the tools (at least
// MCPCHECK_MIN_TOOLS, each input schema a JSON Schema object), calls
// whoami, then plays an agent's whole day between a buyer's and a seller's
// agent: search, get a listing, make an offer, the seller counters, accept,
// the order, a message, ship, confirm delivery.
//
// Keys and ids come in the environment: MCPCHECK_BUYER_KEY,
// MCPCHECK_SELLER_KEY, MCPCHECK_LISTING_ID, MCPCHECK_LISTING_TITLE. The
// day needs tools that may not be in the catalogue yet: when one is
// missing it is skipped (and said so), unless MCPCHECK_REQUIRE_DAY=1.
// Exit 0 when every check passed; 1 with the failed step on stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const env = process.env;
const need = (name) => {
	const v = env[name];
	if (!v) throw new Error(`${name} is not set`);
	return v;
};

async function connect(key) {
	const client = new Client({ name: "mcpcheck", version: "1.0.0" });
	let transport;
	if (need("MCPCHECK_TRANSPORT") === "stdio") {
		transport = new StdioClientTransport({
			command: need("MCPCHECK_BINARY"),
			args: ["mcp", "--url", need("MCPCHECK_URL")],
			env: { ...env, MARKETPLACE_AGENT_KEY: key },
			stderr: "inherit",
		});
	} else {
		transport = new StreamableHTTPClientTransport(new URL(need("MCPCHECK_URL")), {
			requestInit: { headers: { "X-Agent-Key": key } },
		});
	}
	await client.connect(transport);
	return client;
}

let step = "start";
const ok = (what) => console.log(`ok ${what}`);

// call calls a tool and answers its structured content; a tool error
// fails the step with its code.
async function call(client, name, args) {
	step = `${name} ${JSON.stringify(args)}`;
	const res = await client.callTool({ name, arguments: args });
	const data = res.structuredContent;
	if (res.isError) throw new Error(`${name}: tool error ${JSON.stringify(data ?? res.content)}`);
	if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error(`${name}: no structured object`);
	const text = res.content?.[0]?.text;
	if (canonical(JSON.parse(text)) !== canonical(data)) throw new Error(`${name}: text is not the structured content`);
	return data;
}

// canonical is v as JSON with object keys sorted (a proxy may reorder them).
const canonical = (v) =>
	JSON.stringify(v, (_, x) =>
		x && typeof x === "object" && !Array.isArray(x)
			? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]))
			: x);

// pick names the argument among candidates that the tool's schema has.
function pick(tools, tool, ...candidates) {
	const props = tools.get(tool)?.inputSchema?.properties ?? {};
	const name = candidates.find((c) => c in props);
	if (!name) throw new Error(`${tool}: none of ${candidates.join(", ")} in its schema (${Object.keys(props).join(", ")})`);
	return name;
}

const idOf = (obj, ...keys) => {
	for (const k of keys) {
		const v = k.split(".").reduce((o, p) => (o == null ? undefined : o[p]), obj);
		if (typeof v === "string" && v) return v;
	}
	throw new Error(`no id among ${keys.join(", ")} in ${JSON.stringify(obj).slice(0, 400)}`);
};

const dayTools = ["search_listings", "get_listing", "make_offer", "counter_offer", "accept_offer",
	"get_orders", "get_order_detail", "send_message", "create_shipment", "confirm_delivery"];

async function main() {
	const buyer = await connect(need("MCPCHECK_BUYER_KEY"));
	step = "tools/list";
	const list = [];
	let cursor;
	do {
		const page = await buyer.listTools(cursor ? { cursor } : {});
		list.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor);
	const min = Number(env.MCPCHECK_MIN_TOOLS ?? "1");
	if (list.length < min) throw new Error(`${list.length} tools, want at least ${min}`);
	for (const t of list) {
		const s = t.inputSchema;
		if (!s || typeof s !== "object" || s.type !== "object") throw new Error(`${t.name}: input schema ${JSON.stringify(s)} is not an object schema`);
		if (!/^[a-z][a-z0-9_]*$/.test(t.name)) throw new Error(`${t.name}: not snake_case`);
		if (!t.description) throw new Error(`${t.name}: no description`);
	}
	ok(`tools/list: ${list.length} tools, every input schema an object`);
	const tools = new Map(list.map((t) => [t.name, t]));

	const me = await call(buyer, "whoami", {});
	if (!me.agent?.key_id) throw new Error(`whoami: ${JSON.stringify(me)}`);
	ok(`whoami: key ${me.agent.key_id}`);

	const missing = dayTools.filter((t) => !tools.has(t));
	if (missing.length > 0) {
		if (env.MCPCHECK_REQUIRE_DAY === "1") throw new Error(`the day needs tools the server lacks: ${missing.join(", ")}`);
		console.log(`skip the day: the server lacks ${missing.join(", ")}`);
		await buyer.close();
		return;
	}
	const seller = await connect(need("MCPCHECK_SELLER_KEY"));
	const listingID = need("MCPCHECK_LISTING_ID");
	const title = need("MCPCHECK_LISTING_TITLE");

	const found = await call(buyer, "search_listings", { [pick(tools, "search_listings", "q", "query", "text")]: title });
	if (!(found.listings ?? []).some((l) => l.id === listingID)) throw new Error(`search_listings did not find ${listingID}`);
	ok("search_listings");
	const listing = await call(buyer, "get_listing", { [pick(tools, "get_listing", "listing_id", "id")]: listingID });
	const price = listing.price ?? listing.listing?.price;
	if (typeof price !== "number") throw new Error(`get_listing: no price in ${JSON.stringify(listing).slice(0, 300)}`);
	ok(`get_listing: price ${price}`);

	const offer = await call(buyer, "make_offer", {
		[pick(tools, "make_offer", "listing_id")]: listingID,
		[pick(tools, "make_offer", "amount", "offer_amount", "price")]: Math.floor(price * 0.8),
		[pick(tools, "make_offer", "message")]: "Would you take a little less?",
	});
	const offerID = idOf(offer, "id", "offer.id", "offer_id");
	ok(`make_offer: ${offerID}`);
	await call(seller, "counter_offer", {
		[pick(tools, "counter_offer", "offer_id", "id")]: offerID,
		[pick(tools, "counter_offer", "counter_amount", "amount", "price")]: Math.floor(price * 0.9),
	});
	ok("counter_offer (seller)");
	const accepted = await call(buyer, "accept_offer", { [pick(tools, "accept_offer", "offer_id", "id")]: offerID });
	ok(`accept_offer: ${accepted.status ?? accepted.offer?.status ?? "done"}`);

	const orders = await call(buyer, "get_orders", {});
	const order = (orders.orders ?? []).find((o) => (o.listing_id ?? o.listing?.id) === listingID);
	if (!order) throw new Error(`get_orders: no order for ${listingID}: ${JSON.stringify(orders).slice(0, 400)}`);
	const orderID = idOf(order, "id", "order_id");
	const detail = await call(buyer, "get_order_detail", { [pick(tools, "get_order_detail", "order_id", "id")]: orderID });
	ok(`order ${orderID}: ${detail.status ?? detail.order?.status}`);

	await call(buyer, "send_message", {
		[pick(tools, "send_message", "listing_id")]: listingID,
		[pick(tools, "send_message", "message", "content", "text")]: "Thanks! Please ship soon.",
	});
	ok("send_message");
	await call(seller, "create_shipment", {
		[pick(tools, "create_shipment", "order_id", "id")]: orderID,
		[pick(tools, "create_shipment", "carrier")]: "ups",
		[pick(tools, "create_shipment", "tracking_number")]: "1Z999AA10123456784",
	});
	ok("create_shipment (seller)");
	await call(buyer, "confirm_delivery", { [pick(tools, "confirm_delivery", "order_id", "id")]: orderID });
	ok("confirm_delivery");
	await seller.close();
	await buyer.close();
}

main().then(
	() => process.exit(0),
	(err) => {
		console.error(`FAILED at ${step}: ${err?.stack ?? err}`);
		process.exit(1);
	},
);
