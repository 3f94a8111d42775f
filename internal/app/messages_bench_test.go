package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/store"
)

// BenchmarkThreads measures GET /api/v1/messages/threads (the first page of
// 20) for a user with 1,000 threads (500 as buyer, 500 as seller, three
// messages each) through the whole handler stack on SQLite, and reports
// the latency's p50 and p99.
func BenchmarkThreads(b *testing.B) {
	db, h := benchServer(b)
	ctx := context.Background()
	me, token := benchRegister(b, h, "me")
	other, _ := benchRegister(b, h, "other")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := db.InTx(ctx, func(tx *store.Tx) error {
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
	benchLatency(b, h, "/api/v1/messages/threads", "Authorization", "Bearer "+token)
}
