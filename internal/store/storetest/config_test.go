package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"marketplace/internal/settings"
	"marketplace/internal/store"
)

func TestConfigValues(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		got, err := db.Read().ConfigValues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Fatalf("fresh store has values: %v", got)
		}
		put := func(v settings.Stored) {
			t.Helper()
			if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.PutConfigValue(ctx, v) }); err != nil {
				t.Fatal(err)
			}
		}
		put(settings.Stored{Key: "offers.max_rounds", Value: json.RawMessage(`7`), UpdatedAt: t0, UpdatedBy: "u1"})
		put(settings.Stored{Key: "moderation.restricted_brands", Value: json.RawMessage(`["Hermès","Tiffany & Co."]`), UpdatedAt: t0, UpdatedBy: "u1"})
		t1 := t0.Add(time.Hour)
		put(settings.Stored{Key: "offers.max_rounds", Value: json.RawMessage(`9`), UpdatedAt: t1, UpdatedBy: "u2"})

		got, err = db.Read().ConfigValues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("values = %v, want 2 keys", got)
		}
		r := got["offers.max_rounds"]
		if r.Key != "offers.max_rounds" || string(r.Value) != `9` || !r.UpdatedAt.Equal(t1) || r.UpdatedAt.Location() != time.UTC || r.UpdatedBy != "u2" {
			t.Fatalf("overwrite lost: %+v", r)
		}
		b := got["moderation.restricted_brands"]
		if string(b.Value) != `["Hermès","Tiffany & Co."]` || !b.UpdatedAt.Equal(t0) || b.UpdatedBy != "u1" {
			t.Fatalf("round trip: %+v (%s)", b, b.Value)
		}

		// A rolled-back put leaves the stored value alone.
		_ = db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.PutConfigValue(ctx, settings.Stored{Key: "offers.max_rounds", Value: json.RawMessage(`1`), UpdatedAt: t1}); err != nil {
				return err
			}
			return context.Canceled
		})
		got, _ = db.Read().ConfigValues(ctx)
		if string(got["offers.max_rounds"].Value) != `9` {
			t.Fatalf("rolled-back put applied: %s", got["offers.max_rounds"].Value)
		}
	})
}
