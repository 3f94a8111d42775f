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
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// The sandbox clock's advance outlives the process: a service started again
// on the same store runs at the advanced time, so orders stamped in it are
// not stuck waiting for real time to catch up.
func TestSandboxClockSurvivesRestart(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := config.Config{DataDir: t.TempDir(), Mode: config.Sandbox, PublicURL: "http://127.0.0.1",
			JWTSecret: "test-secret-0123456789abcdef0123456789"}
		if err := jobs.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		start := func() (*app.App, *httptest.Server) {
			a, err := app.New(ctx, cfg, db, app.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(a.Handler())
			t.Cleanup(ts.Close)
			return a, ts
		}
		first, ts := start()
		token := registerToken(t, ts.URL)
		req, _ := http.NewRequest("POST", ts.URL+"/v1/sandbox/time-advance/48", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("time-advance answered %d", resp.StatusCode)
		}
		if ahead := time.Until(first.Clock.Now()); ahead < 47*time.Hour {
			t.Fatalf("the clock is %v ahead after advancing 48 hours", ahead)
		}
		ts.Close()

		again, _ := start()
		if ahead := time.Until(again.Clock.Now()); ahead < 47*time.Hour || ahead > 49*time.Hour {
			t.Fatalf("after a restart the clock is %v ahead, want 48 hours", ahead)
		}
	})
}

func registerToken(t *testing.T, base string) string {
	t.Helper()
	body := `{"email":"clock@example.com","password":"correct horse battery","displayName":"Clock","acceptedTerms":true}`
	resp, err := http.Post(base+"/api/v1/auth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			AccessToken string `json:"accessToken"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Data.AccessToken == "" {
		t.Fatalf("register: %d %v", resp.StatusCode, err)
	}
	return out.Data.AccessToken
}
