package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the bare reference, as the command
// does when it starts itself again.
func TestMain(m *testing.M) {
	if dir := os.Getenv(bareEnv); dir != "" {
		os.Exit(bareMain(dir))
	}
	os.Exit(m.Run())
}

// TestBench runs the whole command small (200 listings, 1-second loads) on
// SQLite, and on PostgreSQL when MARKETPLACE_TEST_DATABASE_URL is set, and
// checks that every row of the table is printed with no failed request.
func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the service")
	}
	engine := "sqlite"
	pg := os.Getenv("MARKETPLACE_TEST_DATABASE_URL")
	if pg != "" {
		engine = "both"
	}
	var out, progress bytes.Buffer
	o := Options{Listings: 200, Engine: engine, Duration: time.Second, Clients: 4, Buyers: 4, Rounds: 2, PostgresURL: pg}
	if err := Run(t.Context(), o, &out, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	t.Log("\n" + out.String())
	tables := strings.Split(out.String(), "\n### ")[1:]
	if want := map[string]int{"sqlite": 1, "both": 2}[engine]; len(tables) != want {
		t.Fatalf("%d tables, want %d", len(tables), want)
	}
	for _, table := range tables {
		for _, row := range []string{
			"| `GET /api/v1/listings/{id}`", "% of bare** (",
			"| varied search (`scripts/searchload` mix)",
			"| agent purchases (`POST /api/v1/agent/purchase`)",
			"| idle RSS after start-up (the service's process, pid ", "(anonymous ",
			"| RSS after the search load",
			"load average ",
		} {
			if !strings.Contains(table, row) {
				t.Errorf("no %q in\n%s", row, table)
			}
		}
		if strings.Contains(table, "failed, first:") || strings.Contains(table, "unknown") {
			t.Errorf("failed requests or a missing figure in\n%s", table)
		}
	}
}
