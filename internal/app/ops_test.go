package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/store/storetest"
)

func serviceWith(t *testing.T, redisURL string) *app.App {
	t.Helper()
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Mode: config.Sandbox, PublicURL: "http://svc.test",
		JWTSecret: "ops-secret-0123456789abcdef0123456789", RedisURL: redisURL}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func get(t *testing.T, a *app.App, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %v: %s", path, err, rec.Body)
	}
	return rec.Code, body
}

// /health/deep checks the database, the cache and the job queue, and names
// what failed with a 503.
func TestDeepHealth(t *testing.T) {
	code, body := get(t, serviceWith(t, ""), "/health/deep")
	checks := body["data"].(map[string]any)["checks"].(map[string]any)
	if code != 200 || len(checks) != 3 || checks["database"].(map[string]any)["status"] != "ok" ||
		checks["jobs"].(map[string]any)["status"] != "ok" || checks["cache"].(map[string]any)["status"] != "ok" {
		t.Fatalf("healthy: %d %v", code, body)
	}

	code, body = get(t, serviceWith(t, "redis://127.0.0.1:1/0"), "/api/v1/health/deep")
	e := body["error"].(map[string]any)
	failed := e["details"].(map[string]any)["failed"].([]any)
	if code != 503 || e["code"] != "SERVICE_UNAVAILABLE" || len(failed) != 1 || failed[0] != "cache" {
		t.Fatalf("dead cache: %d %v", code, body)
	}

	if url := os.Getenv("MARKETPLACE_TEST_REDIS_URL"); url != "" {
		code, body = get(t, serviceWith(t, url), "/health/deep")
		if code != 200 {
			t.Fatalf("with the test Redis: %d %v", code, body)
		}
	}
}

func TestDirectoryManifestAndKey(t *testing.T) {
	a := serviceWith(t, "")
	for _, path := range []string{"/", "/api/v1/"} {
		code, body := get(t, a, path)
		links := body["data"].(map[string]any)["links"].(map[string]any)
		if code != 200 || links["openapi"] != "http://svc.test/api/v1/openapi.json" || links["openapiAgent"] != "http://svc.test/v1/openapi.json" {
			t.Fatalf("%s: %d %v", path, code, body)
		}
	}
	code, body := get(t, a, "/api/v1/manifest")
	m := body["data"].(map[string]any)
	if code != 200 || m["name"] != "marketplace" || m["version"] == "" || len(m["capabilities"].([]any)) == 0 || m["links"] == nil {
		t.Fatalf("manifest: %d %v", code, body)
	}
	code, body = get(t, a, "/api/v1/config/stripe-publishable-key")
	if code != 200 || body["data"].(map[string]any)["publishableKey"] != "pk_test_sandbox" {
		t.Fatalf("publishable key: %d %v", code, body)
	}
	for _, path := range []string{"/api/v1/openapi.json", "/v1/openapi.json"} {
		code, body = get(t, a, path)
		if code != 200 || body["openapi"] != "3.0.3" || len(body["paths"].(map[string]any)) == 0 {
			t.Fatalf("%s: %d", path, code)
		}
	}
}
