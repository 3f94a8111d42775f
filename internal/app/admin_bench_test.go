package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// TestAdminMillion seeds 1,000,000 orders and 1,000,000 audit entries per
// engine (with 20,000 users and 50,000 listings behind the orders) and
// drives GET /api/v1/admin/orders?search=... and GET /api/v1/admin/audit
// with filters over real HTTP, 2 clients at a time (one per core here), printing count, req/s,
// p50, p95 and p99 per query kind. It is a measurement, not a check: it runs
// only when asked, in a database of its own (storetest), and fails only on
// a wrong answer:
//
//	MARKETPLACE_BENCH_ADMIN=1 go test ./internal/app -run TestAdminMillion -v -timeout 60m
//
// ADMIN_BENCH_N changes the number of orders and audit entries,
// ADMIN_BENCH_SECONDS the time per query kind (default 3),
// ADMIN_BENCH_ENGINE (sqlite or postgres) runs one engine only and
// ADMIN_BENCH_ONLY the query kinds whose name holds it. ADMIN_BENCH_KEEP=1
// seeds into a database that outlives the run (PostgreSQL database
// admin_bench_<N> on the test server, SQLite file admin_bench_<N>.db in the
// temporary directory) and reuses it when a previous run finished its seed,
// so a run after a store change takes a minute, not six; drop the database
// or remove the file after a schema change.
func TestAdminMillion(t *testing.T) {
	if os.Getenv("MARKETPLACE_BENCH_ADMIN") == "" {
		t.Skip("set MARKETPLACE_BENCH_ADMIN=1 to seed 1,000,000 orders and audit entries and time the admin lists")
	}
	n := 1_000_000
	if s := os.Getenv("ADMIN_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	secs := 3
	if s := os.Getenv("ADMIN_BENCH_SECONDS"); s != "" {
		fmt.Sscan(s, &secs)
	}
	for _, e := range storetest.Engines() {
		if only := os.Getenv("ADMIN_BENCH_ENGINE"); only != "" && only != e.Name {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			var db *store.DB
			var w *benchWorld
			if os.Getenv("ADMIN_BENCH_KEEP") != "" {
				db = openKeptBench(t, e.Name, n)
				w = keptBenchWorld(t, db, n)
			} else {
				db = e.Open(t)
			}
			s := testkit.Start(t, db, testkit.Options{})
			admin := s.Admin()
			if w != nil {
				t.Logf("%s: reusing the seed of a previous run", e.Name)
				runAdminBench(t, s, admin.Token, w, time.Duration(secs)*time.Second)
				return
			}
			start := time.Now()
			w = seedAdminBench(t, db, n)
			if db.Dialect() == store.Postgres {
				// What autovacuum does after a bulk insert (the visibility
				// map lets counts read the indexes alone).
				if _, err := db.WritePool().Exec("VACUUM"); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Analyze(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: seeded %d orders, %d audit entries, %d listings, %d users in %s", e.Name, n, n, w.listings, len(w.users),
				time.Since(start).Round(time.Second))
			runAdminBench(t, s, admin.Token, w, time.Duration(secs)*time.Second)
		})
	}
}

// openKeptBench opens (creating and migrating it) the database that
// ADMIN_BENCH_KEEP keeps between runs.
func openKeptBench(t *testing.T, engine string, n int) *store.DB {
	ctx := context.Background()
	name := fmt.Sprintf("admin_bench_%d", n)
	var db *store.DB
	var err error
	if engine == "sqlite" {
		db, err = store.OpenSQLite(filepath.Join(os.TempDir(), name+".db"))
	} else {
		base := os.Getenv(storetest.PostgresEnv)
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		var exists bool
		if err := admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if !exists {
			if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
				t.Fatal(err)
			}
		}
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		db, err = store.OpenPostgres(u.String())
		if err != nil {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// keptBenchWorld reads back what a finished seed wrote (nil when the kept
// database holds no finished seed: the audit log, seeded last, is short).
// The admin of an earlier run gives up its address: testkit registers
// admin1@example.com again.
func keptBenchWorld(t *testing.T, db *store.DB, n int) *benchWorld {
	ctx := context.Background()
	var done int
	if err := db.WritePool().QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM admin_counts WHERE name = 'audit_log'`).
		Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done < n {
		for _, table := range []string{"audit_log", "orders", "listings", "users"} {
			if _, err := db.WritePool().ExecContext(ctx, "DELETE FROM "+table); err != nil {
				t.Fatalf("empty %s of an unfinished seed: %v", table, err)
			}
		}
		return nil
	}
	if _, err := db.WritePool().ExecContext(ctx,
		`UPDATE users SET email = id || '@earlier.example.com' WHERE email LIKE 'admin%@example.com'`); err != nil {
		t.Fatal(err)
	}
	ids := func(q string) []string {
		rows, err := db.WritePool().QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	w := &benchWorld{start: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)}
	w.end = w.start.Add(time.Duration(n) * (365 * 24 * time.Hour / time.Duration(n)))
	w.users = ids(`SELECT id FROM users WHERE email LIKE 'bench%' ORDER BY id`)
	w.listingIDs = ids(`SELECT id FROM listings ORDER BY created_at, id`)
	w.listings = len(w.listingIDs)
	all := ids(`SELECT id FROM orders ORDER BY created_at, id`)
	for i := 0; i < len(all); i += max(1, len(all)/5000) {
		w.orderIDs = append(w.orderIDs, all[i])
	}
	w.agentIDs = ids(`SELECT DISTINCT actor_id FROM audit_log WHERE actor_type = 'agent' ORDER BY actor_id`)
	w.entityIDs = ids(`SELECT DISTINCT entity_id FROM audit_log ORDER BY entity_id`)
	return w
}

// benchWorld is what the seed wrote that queries pick from.
type benchWorld struct {
	users, orderIDs, listingIDs, agentIDs, entityIDs []string
	listings                                         int
	start, end                                       time.Time
}

var (
	adminBenchAdjectives = strings.Fields(`vintage modern antique classic rustic compact portable wireless digital leather
		wooden ceramic glass metal brass silver golden black white red blue green small large mini deluxe premium retro
		industrial handmade`)
	adminBenchBrands = strings.Fields(`Sony Canon Nikon Apple Samsung Ikea Bosch Philips Dyson Fender Yamaha Gibson Lego Nike
		Adidas Levis Rolex Omega Seiko Casio Panasonic Dell Lenovo Asus Acer Logitech Bose Makita DeWalt Weber KitchenAid
		Cuisinart Pyrex Hasbro Mattel`)
	adminBenchNouns = strings.Fields(`lamp chair table camera lens phone laptop tablet monitor keyboard mouse speaker
		headphones watch ring necklace bracelet jacket coat dress shirt jeans boots sneakers bag backpack wallet sofa desk
		shelf bookcase mirror rug vase kettle toaster blender mixer guitar piano drum violin bicycle helmet tent stroller
		crib puzzle doll book vinyl poster painting frame clock radio television console controller drone projector
		printer scanner router charger drill hammer wrench mower grill planter candle blanket pillow quilt teapot mug
		bowl sculpture figurine coin stamp comic perfume razor dryer`)
	adminBenchActions = func() []string {
		var out []string
		for _, r := range strings.Fields(`listings listings/{id} orders orders/{id}/cancel orders/{id}/confirm-delivery
			offers offers/{id}/accept messages agent/purchase agent-keys auth/login auth/register webhooks
			admin/users/{id}/suspend admin/listings/{id}/approve admin/config/{key} payments/methods shipping/labels
			disputes refunds`) {
			out = append(out, "POST /api/v1/"+r, "PATCH /api/v1/"+r)
		}
		return out
	}()
)

// seedAdminBench writes users and listings through the store, then orders
// and audit entries in multi-row INSERTs of 500 rows, 20,000 rows per
// transaction. One order per listing is live (the orders_listing_live
// index allows no more); the rest are cancelled, expired or refunded.
func seedAdminBench(t *testing.T, db *store.DB, n int) *benchWorld {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(16, 6))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	w := &benchWorld{start: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), listings: min(50_000, max(n/20, 100))}
	// One year of traffic, evenly spread.
	step := 365 * 24 * time.Hour / time.Duration(n)
	w.end = w.start.Add(time.Duration(n) * step)
	pg := db.Dialect() == store.Postgres
	ts := func(at time.Time) any {
		if pg {
			return at
		}
		return at.UTC().Format("2006-01-02 15:04:05.000000+00:00")
	}
	// insert writes rows (each len(cols) values) in statements of 500 rows.
	insert := func(tx *sql.Tx, table string, cols []string, rows [][]any) error {
		for len(rows) > 0 {
			batch := rows[:min(500, len(rows))]
			rows = rows[len(batch):]
			var b strings.Builder
			fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, strings.Join(cols, ", "))
			args := make([]any, 0, len(batch)*len(cols))
			for i, r := range batch {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(")
				for j := range r {
					if j > 0 {
						b.WriteString(", ")
					}
					if pg {
						fmt.Fprintf(&b, "$%d", len(args)+j+1)
					} else {
						b.WriteString("?")
					}
				}
				b.WriteString(")")
				args = append(args, r...)
			}
			if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
				return err
			}
		}
		return nil
	}
	// chunks runs fill for row numbers [0, total) in transactions of 20,000.
	chunks := func(table string, cols []string, total int, row func(i int) []any) {
		for lo := 0; lo < total; lo += 20_000 {
			var rows [][]any
			for i := lo; i < min(lo+20_000, total); i++ {
				rows = append(rows, row(i))
			}
			if err := db.InTx(ctx, func(tx *store.Tx) error { return insert(tx.SQLTx(), table, cols, rows) }); err != nil {
				t.Fatalf("seed %s: %v", table, err)
			}
			// Without a truncating checkpoint the WAL grew past 10 GB
			// over the load and slowed every insert.
			if !pg {
				if _, err := db.WritePool().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
					t.Fatal(err)
				}
			}
			if (lo+20_000)%200_000 == 0 {
				t.Logf("%s: %d rows", table, lo+20_000)
			}
		}
	}

	nUsers := min(20_000, max(n/50, 50))
	for range nUsers {
		w.users = append(w.users, market.NewID())
	}
	chunks("users", []string{"id", "email", "username", "display_name", "status", "trust_tier", "created_at", "updated_at"}, nUsers,
		func(i int) []any {
			at := ts(w.start.Add(time.Duration(i) * time.Minute))
			return []any{w.users[i], fmt.Sprintf("bench%d@example.com", i), fmt.Sprintf("bench%d", i), fmt.Sprintf("Bench User %d", i),
				"active", "new", at, at}
		})

	var leaves []string
	for _, c := range listings.DefaultTaxonomy().All() {
		leaves = append(leaves, c.ID)
	}
	titles := make([]string, w.listings)
	sellers := make([]string, w.listings)
	for lo := 0; lo < w.listings; lo += 2000 {
		err := db.InTx(ctx, func(tx *store.Tx) error {
			for i := lo; i < min(lo+2000, w.listings); i++ {
				ship := int64(800)
				titles[i] = pick(adminBenchAdjectives) + " " + pick(adminBenchBrands) + " " + pick(adminBenchNouns)
				sellers[i] = w.users[rng.IntN(len(w.users))]
				at := w.start.Add(time.Duration(i) * time.Minute)
				l := &listings.Listing{ID: market.NewID(), SellerID: sellers[i], Status: listings.StatusSold, Title: titles[i],
					Description: "Bench item: " + titles[i], Brief: titles[i], Brand: strings.Fields(titles[i])[1],
					Price: int64(500 + rng.IntN(100_000)), PriceSource: "seller", Condition: "good", CategoryID: pick(leaves),
					ShippingType: listings.ShipFlatRate, ShippingCost: &ship, WeightOz: 16, PhotoIDs: []string{},
					CreatedAt: at, UpdatedAt: at}
				if err := tx.CreateListing(ctx, l); err != nil {
					return err
				}
				w.listingIDs = append(w.listingIDs, l.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("seed listings: %v", err)
		}
	}

	dead := []string{"cancelled", "expired", "refunded"}
	orderIDs := make([]string, n)
	chunks("orders", []string{"id", "listing_id", "buyer_id", "seller_id", "channel", "status", "listing_title", "item_price",
		"shipping_cost", "service_fee", "total_charged", "commission", "fulfillment_type", "created_at", "updated_at"}, n,
		func(i int) []any {
			li := rng.IntN(w.listings)
			status := dead[rng.IntN(len(dead))]
			if i < w.listings {
				li, status = i, "completed"
			}
			orderIDs[i] = market.NewID()
			price := int64(500 + rng.IntN(100_000))
			channel := "human"
			if rng.IntN(3) == 0 {
				channel = "agent"
			}
			at := ts(w.start.Add(time.Duration(i) * step))
			return []any{orderIDs[i], w.listingIDs[li], pick(w.users), sellers[li], channel, status, titles[li], price,
				int64(800), price / 20, price + 800 + price/20, price / 10, "ship", at, at}
		})
	for i := 0; i < n; i += max(1, n/5000) {
		w.orderIDs = append(w.orderIDs, orderIDs[i])
	}

	for range 2000 {
		w.agentIDs = append(w.agentIDs, market.NewID())
	}
	for range 200_000 {
		w.entityIDs = append(w.entityIDs, market.NewID())
	}
	chunks("audit_log", []string{"id", "actor_type", "actor_id", "action", "entity_type", "entity_id", "result", "status",
		"error_code", "request_id", "ip", "details", "created_at"}, n,
		func(i int) []any {
			actorType, actorID := "user", pick(w.users)
			switch r := rng.IntN(100); {
			case r < 30:
				actorType, actorID = "agent", pick(w.agentIDs)
			case r < 35:
				actorType, actorID = "admin", w.users[rng.IntN(20)]
			case r < 38:
				actorType, actorID = "anonymous", ""
			}
			result, status, code := "allowed", 200, ""
			switch r := rng.IntN(100); {
			case r < 7:
				result, status, code = "refused", 403, "FORBIDDEN"
			case r < 10:
				result, status, code = "failed", 500, "INTERNAL_ERROR"
			}
			return []any{market.NewID(), actorType, actorID, pick(adminBenchActions), pick([]string{"order", "listing", "user", "offer"}),
				pick(w.entityIDs), result, status, code, fmt.Sprintf("req_%d", i), "10.0.0.1", "", ts(w.start.Add(time.Duration(i) * step))}
		})
	return w
}

// benchKind is one query shape: path draws a request path.
type benchKind struct {
	name string
	path func(rng *rand.Rand) string
}

func runAdminBench(t *testing.T, s *testkit.Server, token string, w *benchWorld, d time.Duration) {
	day := func(rng *rand.Rand) time.Time {
		return w.start.AddDate(0, 0, rng.IntN(int(w.end.Sub(w.start).Hours()/24)))
	}
	date := func(at time.Time) string { return at.Format(time.DateOnly) }
	pick := func(rng *rand.Rand, s []string) string { return s[rng.IntN(len(s))] }
	orders := func(q url.Values) string { return "/api/v1/admin/orders?" + q.Encode() }
	audit := func(q url.Values) string { return "/api/v1/admin/audit?" + q.Encode() }
	search := func(f func(rng *rand.Rand) string) func(rng *rand.Rand) string {
		return func(rng *rand.Rand) string { return orders(url.Values{"search": {f(rng)}}) }
	}
	kinds := []benchKind{
		{"orders newest", func(*rand.Rand) string { return orders(nil) }},
		{"orders status", func(rng *rand.Rand) string {
			return orders(url.Values{"status": {pick(rng, []string{"completed", "cancelled", "refunded", "paid"})}})
		}},
		{"orders buyerId", func(rng *rand.Rand) string { return orders(url.Values{"buyerId": {pick(rng, w.users)}}) }},
		{"orders search order id", search(func(rng *rand.Rand) string { return pick(rng, w.orderIDs) })},
		{"orders search listing id", search(func(rng *rand.Rand) string { return pick(rng, w.listingIDs) })},
		{"orders search unknown id", search(func(*rand.Rand) string { return market.NewID() })},
		// "sony camera": about 1 order in 2,800.
		{"orders search brand+noun", search(func(rng *rand.Rand) string {
			return pick(rng, adminBenchBrands) + " " + pick(rng, adminBenchNouns)
		})},
		// a noun: about 1 in 90; a brand: 1 in 36.
		{"orders search noun", search(func(rng *rand.Rand) string { return pick(rng, adminBenchNouns) })},
		{"orders search brand", search(func(rng *rand.Rand) string { return pick(rng, adminBenchBrands) })},
		{"orders search full title", search(func(rng *rand.Rand) string {
			return pick(rng, adminBenchAdjectives) + " " + pick(rng, adminBenchBrands) + " " + pick(rng, adminBenchNouns)
		})},
		{"orders search miss", search(func(rng *rand.Rand) string { return fmt.Sprintf("zq%dx", rng.IntN(1000)) })},
		{"orders search+status", func(rng *rand.Rand) string {
			return orders(url.Values{"search": {pick(rng, adminBenchNouns)}, "status": {"refunded"}})
		}},

		{"audit newest", func(*rand.Rand) string { return audit(nil) }},
		{"audit newest offset 1000", func(*rand.Rand) string { return audit(url.Values{"offset": {"1000"}}) }},
		{"audit actorId", func(rng *rand.Rand) string { return audit(url.Values{"actorId": {pick(rng, w.users)}}) }},
		{"audit actorType+actorId", func(rng *rand.Rand) string {
			return audit(url.Values{"actorType": {"agent"}, "actorId": {pick(rng, w.agentIDs)}})
		}},
		{"audit entity", func(rng *rand.Rand) string {
			return audit(url.Values{"entityType": {"order"}, "entityId": {pick(rng, w.entityIDs)}})
		}},
		{"audit entityType", func(rng *rand.Rand) string {
			return audit(url.Values{"entityType": {pick(rng, []string{"order", "listing", "user", "offer"})}})
		}},
		{"audit action", func(rng *rand.Rand) string { return audit(url.Values{"action": {pick(rng, adminBenchActions)}}) }},
		{"audit action offset 200", func(rng *rand.Rand) string {
			return audit(url.Values{"action": {pick(rng, adminBenchActions)}, "offset": {"200"}})
		}},
		{"audit result refused|failed", func(rng *rand.Rand) string {
			return audit(url.Values{"result": {pick(rng, []string{"refused", "failed"})}})
		}},
		{"audit result allowed", func(*rand.Rand) string { return audit(url.Values{"result": {"allowed"}}) }},
		{"audit actorType", func(rng *rand.Rand) string {
			return audit(url.Values{"actorType": {pick(rng, []string{"user", "agent", "admin", "anonymous"})}})
		}},
		{"audit one day", func(rng *rand.Rand) string {
			d := date(day(rng))
			return audit(url.Values{"startDate": {d}, "endDate": {d}})
		}},
		{"audit one month", func(rng *rand.Rand) string {
			d := day(rng)
			return audit(url.Values{"startDate": {date(d)}, "endDate": {date(d.AddDate(0, 1, 0))}})
		}},
		{"audit since a date", func(rng *rand.Rand) string { return audit(url.Values{"startDate": {date(day(rng))}}) }},
		{"audit actorId+result", func(rng *rand.Rand) string {
			return audit(url.Values{"actorId": {pick(rng, w.users)}, "result": {"allowed"}})
		}},
		{"audit action+week", func(rng *rand.Rand) string {
			d := day(rng)
			return audit(url.Values{"action": {pick(rng, adminBenchActions)}, "startDate": {date(d)}, "endDate": {date(d.AddDate(0, 0, 6))}})
		}},
		{"audit result+day", func(rng *rand.Rand) string {
			d := date(day(rng))
			return audit(url.Values{"result": {"refused"}, "startDate": {d}, "endDate": {d}})
		}},
		{"audit action+result", func(rng *rand.Rand) string {
			return audit(url.Values{"action": {pick(rng, adminBenchActions)}, "result": {"failed"}})
		}},
		{"audit actorType+result+month", func(rng *rand.Rand) string {
			d := day(rng)
			return audit(url.Values{"actorType": {"agent"}, "result": {"refused"}, "startDate": {date(d)},
				"endDate": {date(d.AddDate(0, 1, 0))}})
		}},
	}
	if only := os.Getenv("ADMIN_BENCH_ONLY"); only != "" {
		kinds = slices.DeleteFunc(kinds, func(k benchKind) bool { return !strings.Contains(k.name, only) })
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	get := func(path string) (int, error) {
		req, err := http.NewRequest("GET", s.URL+path, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		var env struct {
			Meta struct {
				Total int `json:"total"`
			} `json:"meta"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil {
			return 0, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return env.Meta.Total, nil
	}
	const clients = 2
	var report strings.Builder
	fmt.Fprintf(&report, "\n%-30s %6s %7s %8s %8s %8s %8s %9s\n", "kind", "count", "req/s", "p50", "p95", "p99", "max", "avg total")
	var over []string
	for _, k := range kinds {
		// Warm up: the first requests of a shape prepare its statements.
		for i := range 3 {
			if _, err := get(k.path(rand.New(rand.NewPCG(uint64(i), 99)))); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		var lat []time.Duration
		var totals int64
		began := time.Now()
		deadline := began.Add(d)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(c), uint64(len(k.name))))
				var mine []time.Duration
				var sum int64
				for time.Now().Before(deadline) {
					p := k.path(rng)
					t0 := time.Now()
					total, err := get(p)
					if err != nil {
						t.Error(err)
						return
					}
					mine = append(mine, time.Since(t0))
					sum += int64(total)
				}
				mu.Lock()
				lat, totals = append(lat, mine...), totals+sum
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(began)
		if len(lat) == 0 {
			t.Fatalf("%s: no requests", k.name)
		}
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(float64(len(lat)-1)*q)].Round(10 * time.Microsecond) }
		fmt.Fprintf(&report, "%-30s %6d %7.0f %8s %8s %8s %8s %9d\n", k.name, len(lat), float64(len(lat))/elapsed.Seconds(),
			p(0.5), p(0.95), p(0.99), lat[len(lat)-1].Round(10*time.Microsecond), totals/int64(len(lat)))
		if p(0.99) >= 50*time.Millisecond {
			over = append(over, k.name)
		}
	}
	t.Log(report.String())
	if len(over) > 0 {
		t.Logf("p99 at or over 50 ms: %s", strings.Join(over, ", "))
	}
}
