package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/store/storetest"
)

// BenchmarkAgentMe measures GET /api/v1/auth/me with an agent key through
// the whole handler stack (authentication, spending snapshot, envelope,
// access log, metrics) on SQLite, without the network.
func BenchmarkAgentMe(b *testing.B) {
	db := storetest.OpenSQLite(b)
	ctx := context.Background()
	if err := jobs.Migrate(ctx, db); err != nil {
		b.Fatal(err)
	}
	cfg := config.Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), Mode: config.Sandbox, PublicURL: "http://x",
		JWTSecret: "bench-secret-0123456789abcdef0123456789"}
	a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	h := a.Handler()
	call := func(method, path, body string, header ...string) map[string]any {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		data, _ := out["data"].(map[string]any)
		return data
	}
	reg := call("POST", "/api/v1/auth/register", `{"email":"b@example.com","password":"0123456789","displayName":"B","acceptedTerms":true}`)
	key := call("POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+reg["accessToken"].(string))["key"].(string)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/v1/auth/me", nil)
			req.Header.Set("X-Agent-Key", key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
}
