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
	"marketplace/internal/offers"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
)

// BenchmarkBuyerOffers measures GET /api/v1/agent/offers/buyer/me (the
// first page, default limit 20) with an agent key whose owner has made
// 1,000 offers (one per listing, on the listings of 10 sellers; most still
// open with one to three rounds, the rest rejected, withdrawn or expired)
// through the whole handler stack on SQLite, and reports the latency's p50
// and p99. The offers are inserted straight into the store before the
// timer starts.
func BenchmarkBuyerOffers(b *testing.B) {
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
		var out struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Data == nil {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return out.Data
	}
	register := func(name string) (id, token string) {
		d := call("POST", "/api/v1/auth/register", fmt.Sprintf(
			`{"email":"%s@example.com","password":"0123456789","displayName":"%s","acceptedTerms":true}`, name, name))
		return d["user"].(map[string]any)["id"].(string), d["accessToken"].(string)
	}
	me, token := register("buyer")
	k := call("POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+token)
	key, keyID := k["key"].(string), k["id"].(string)
	sellers := make([]string, 10)
	for i := range sellers {
		sellers[i], _ = register(fmt.Sprintf("seller%d", i))
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = db.InTx(ctx, func(tx *store.Tx) error {
		for i := range 1000 {
			at := start.Add(time.Duration(i) * time.Minute)
			seller := sellers[i%len(sellers)]
			l := &listings.Listing{ID: market.NewID(), SellerID: seller, Status: listings.StatusActive,
				Title: fmt.Sprintf("Listing %d", i), Description: "x", Brief: "x", Price: 10000, PriceSource: "seller",
				Condition: "good", ShippingType: listings.ShipFree, PhotoIDs: []string{}, CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateListing(ctx, l); err != nil {
				return err
			}
			o := &offers.Offer{ID: market.NewID(), ListingID: l.ID, BuyerID: me, BuyerKeyID: keyID, SellerID: seller,
				Status: offers.StatusPending, OfferPrice: 8000, CurrentPrice: 8000, Message: "would you take this?",
				Round: 1, MaxRounds: 5, Awaiting: offers.Seller, ExpiresAt: at.Add(offers.RoundTTL), AutoPurchase: true,
				SentByAgent: true, CreatedAt: at, UpdatedAt: at,
				Rounds: []offers.Round{{Round: 1, By: offers.Buyer, Amount: 8000, Message: "would you take this?",
					SentByAgent: true, CreatedAt: at}}}
			for r := 2; r <= 1+i%3; r++ {
				by, amount := offers.Seller, int64(9500)
				if r == 3 {
					by, amount = offers.Buyer, 8800
				}
				when := at.Add(time.Duration(r) * time.Second)
				o.Rounds = append(o.Rounds, offers.Round{Round: r, By: by, Amount: amount, Message: "how about this?",
					SentByAgent: by == offers.Buyer, CreatedAt: when})
				o.Status, o.Round, o.CurrentPrice, o.CounterPrice = offers.StatusCountered, r, amount, &amount
				o.Awaiting, o.ExpiresAt, o.UpdatedAt = offers.Buyer, when.Add(offers.RoundTTL), when
				if by == offers.Buyer {
					o.Awaiting = offers.Seller
				}
			}
			switch i % 10 {
			case 7:
				o.Status, o.Awaiting = offers.StatusRejected, ""
			case 8:
				o.Status, o.Awaiting = offers.StatusWithdrawn, ""
			case 9:
				o.Status, o.Awaiting = offers.StatusExpired, ""
			default:
				o.Reserved = o.CurrentPrice + 300
			}
			if err := tx.CreateOffer(ctx, o); err != nil {
				return err
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
	// The page holds the 20 newest of the 1,000 offers.
	{
		req := httptest.NewRequest("GET", "/api/v1/agent/offers/buyer/me", nil)
		req.Header.Set("X-Agent-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct {
			Data []struct{ ID string } `json:"data"`
			Meta struct{ Total int }   `json:"meta"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusOK ||
			len(out.Data) != 20 || out.Meta.Total != 1000 {
			b.Fatalf("first page: %d, %d offers of %d: %.300s", rec.Code, len(out.Data), out.Meta.Total, rec.Body)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/api/v1/agent/offers/buyer/me", nil)
		req.Header.Set("X-Agent-Key", key)
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
