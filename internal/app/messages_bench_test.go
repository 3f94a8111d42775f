package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/jobs"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// BenchmarkThreads measures GET /api/v1/messages/threads (the first page of
// 20) for a user with 1,000 threads (500 as buyer, 500 as seller, three
// messages each) through the whole handler stack on SQLite, and reports
// the latency's p50 and p99.
func BenchmarkThreads(b *testing.B) {
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
	register := func(name string) (id, token string) {
		req := httptest.NewRequest("POST", "/api/v1/auth/register", strings.NewReader(fmt.Sprintf(
			`{"email":"%s@example.com","password":"0123456789","displayName":"%s","acceptedTerms":true}`, name, name)))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct {
			Data struct {
				User        struct{ ID string } `json:"user"`
				AccessToken string              `json:"accessToken"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Data.AccessToken == "" {
			b.Fatalf("register: %d %s", rec.Code, rec.Body)
		}
		return out.Data.User.ID, out.Data.AccessToken
	}
	me, token := register("me")
	other, _ := register("other")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = db.InTx(ctx, func(tx *store.Tx) error {
		for i := range 1000 {
			at := start.Add(time.Duration(i) * time.Minute)
			seller, buyer := other, me
			if i%2 == 1 {
				seller, buyer = me, other
			}
			l := &listings.Listing{ID: market.NewID(), SellerID: seller, Status: listings.StatusActive,
				Title: fmt.Sprintf("Listing %d", i), Description: "x", Brief: "x", Price: 1000, PriceSource: "seller",
				Condition: "good", ShippingType: listings.ShipFree, PhotoIDs: []string{}, CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateListing(ctx, l); err != nil {
				return err
			}
			t, err := tx.EnsureThread(ctx, &messaging.Thread{ID: market.NewID(), ListingID: l.ID, BuyerID: buyer,
				SellerID: seller, LastMessageAt: at, CreatedAt: at})
			if err != nil {
				return err
			}
			for j := range 3 {
				when := at.Add(time.Duration(j) * time.Second)
				sender := buyer
				if j == 1 {
					sender = seller
				}
				m := &messaging.Message{ID: market.NewID(), ThreadID: t.ID, SenderID: sender, Type: messaging.TypeText,
					Content: "message", CreatedAt: when}
				if sender == buyer {
					m.BuyerReadAt = &when
				} else {
					m.SellerReadAt = &when
				}
				if err := tx.AddMessage(ctx, m, t); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Analyze(ctx); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/api/v1/messages/threads", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		lat = append(lat, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		p50, p99 := lat[len(lat)*50/100], lat[min(len(lat)-1, len(lat)*99/100)]
		b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	}
}
