package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/offers"
	"marketplace/internal/store"
)

// BenchmarkBuyerOffers measures GET /api/v1/agent/offers/buyer/me (the
// first page, default limit 20) with an agent key whose owner has made
// 1,000 offers (one per listing, on the listings of 10 sellers; most still
// open with one to three rounds, the rest rejected, withdrawn or expired)
// through the whole handler stack on SQLite, and reports the latency's p50
// and p99. The offers are inserted straight into the store before the
// timer starts.
func BenchmarkBuyerOffers(b *testing.B) {
	db, h := benchServer(b)
	ctx := context.Background()
	call := func(method, path, body string, header ...string) map[string]any {
		return benchCall(b, h, method, path, body, header...)
	}
	me, token := benchRegister(b, h, "buyer")
	k := call("POST", "/api/v1/agent-keys", `{"label":"b","scope":"buy_sell","acceptedAgentTerms":true}`,
		"Authorization", "Bearer "+token)
	key, keyID := k["key"].(string), k["id"].(string)
	sellers := make([]string, 10)
	for i := range sellers {
		sellers[i], _ = benchRegister(b, h, fmt.Sprintf("seller%d", i))
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := db.InTx(ctx, func(tx *store.Tx) error {
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
	benchLatency(b, h, "/api/v1/agent/offers/buyer/me", "X-Agent-Key", key)
}
