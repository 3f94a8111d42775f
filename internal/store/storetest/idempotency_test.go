package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/audit"
	"marketplace/internal/httpapi"
	"marketplace/internal/idempotency"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// Idempotency claims are leased: the holder renews its lease, a claim whose
// lease ran out can be taken over once, and a live or finished claim
// cannot.
func TestIdempotencyLeases(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		real := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		rec := &idempotency.Record{OwnerID: "owner-1", Key: "k1", Route: "POST /x", Hash: "h1",
			ExpiresAt: t0.Add(24 * time.Hour), LeaseOwner: "proc-a", LeaseUntil: real.Add(6 * time.Second)}
		prior, claimed, err := db.ClaimIdempotency(ctx, rec, t0)
		if err != nil || !claimed || prior != nil {
			t.Fatalf("first claim: %v %v %v", prior, claimed, err)
		}
		again := *rec
		again.LeaseOwner = "proc-b"
		prior, claimed, err = db.ClaimIdempotency(ctx, &again, t0)
		if err != nil || claimed {
			t.Fatalf("second claim: claimed %v, %v", claimed, err)
		}
		if prior.Done || prior.LeaseOwner != "proc-a" || !prior.LeaseUntil.Equal(real.Add(6*time.Second)) || prior.Hash != "h1" {
			t.Fatalf("prior = %+v", prior)
		}

		// A live lease cannot be taken; its holder renews it.
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k1", "proc-b", real.Add(10*time.Second), real.Add(5*time.Second)); err != nil || took {
			t.Fatalf("took a live lease: %v %v", took, err)
		}
		if held, err := db.RenewIdempotency(ctx, "owner-1", "k1", "proc-b", real.Add(time.Minute)); err != nil || held {
			t.Fatalf("a stranger renewed the lease: %v %v", held, err)
		}
		if held, err := db.RenewIdempotency(ctx, "owner-1", "k1", "proc-a", real.Add(20*time.Second)); err != nil || !held {
			t.Fatalf("the holder could not renew: %v %v", held, err)
		}
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k1", "proc-b", real.Add(30*time.Second), real.Add(10*time.Second)); err != nil || took {
			t.Fatalf("took a renewed lease: %v %v", took, err)
		}

		// Once it ran out, one taker gets it; a second finds it live again.
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k1", "proc-b", real.Add(27*time.Second), real.Add(21*time.Second)); err != nil || !took {
			t.Fatalf("could not take an expired lease: %v %v", took, err)
		}
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k1", "proc-c", real.Add(27*time.Second), real.Add(21*time.Second)); err != nil || took {
			t.Fatalf("a second taker got it too: %v %v", took, err)
		}
		if held, err := db.RenewIdempotency(ctx, "owner-1", "k1", "proc-a", real.Add(time.Minute)); err != nil || held {
			t.Fatalf("the old holder still renews: %v %v", held, err)
		}
		// The old holder's give-up after a failure leaves the taker's claim.
		if err := db.ReleaseIdempotency(ctx, "owner-1", "k1", "proc-a"); err != nil {
			t.Fatal(err)
		}
		got, err := db.IdempotencyRecord(ctx, "owner-1", "k1")
		if err != nil || got.LeaseOwner != "proc-b" {
			t.Fatalf("record after take-over: %+v, %v", got, err)
		}

		// A finished claim is never taken over.
		if err := db.FinishIdempotency(ctx, "owner-1", "k1", 201, []byte(`{"ok":true}`)); err != nil {
			t.Fatal(err)
		}
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k1", "proc-c", real.Add(time.Hour), real.Add(time.Hour)); err != nil || took {
			t.Fatalf("took a finished claim: %v %v", took, err)
		}
		got, err = db.IdempotencyRecord(ctx, "owner-1", "k1")
		if err != nil || !got.Done || got.Status != 201 || string(got.Body) != `{"ok":true}` {
			t.Fatalf("finished record: %+v, %v", got, err)
		}

		// A claim without a lease (made before leases existed) is stale.
		old := &idempotency.Record{OwnerID: "owner-1", Key: "k2", Route: "POST /x", Hash: "h2", ExpiresAt: t0.Add(time.Hour)}
		if _, claimed, err := db.ClaimIdempotency(ctx, old, t0); err != nil || !claimed {
			t.Fatalf("claim without lease: %v %v", claimed, err)
		}
		if took, err := db.TakeOverIdempotency(ctx, "owner-1", "k2", "proc-b", real.Add(time.Minute), real); err != nil || !took {
			t.Fatalf("could not take a claim without a lease: %v %v", took, err)
		}
		if err := db.ReleaseIdempotency(ctx, "owner-1", "k2", "proc-b"); err != nil {
			t.Fatal(err)
		}
		_, err = db.IdempotencyRecord(ctx, "owner-1", "k2")
		wantCode(t, err, market.CodeNotFound)
	})
}

// Audit entries keep their details, and a refused value is stored in the
// safe rendering the HTTP edge makes of it, on both engines.
func TestAuditDetails(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := &audit.Entry{ID: market.NewID(), ActorType: "anonymous", Action: httpapi.SafeText("GET /api/v1/orders/\x00\xff", 300),
			EntityID: httpapi.SafeText("a\x00b", 200), Result: audit.Refused, Status: 400, ErrorCode: "VALIDATION_ERROR",
			RequestID: "req_details", Details: map[string]any{"field": "title", "value": httpapi.SafeText("x\x00\u0085y", 200)},
			CreatedAt: t0}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.AppendAudit(ctx, e) }); err != nil {
			t.Fatal(err)
		}
		got, n, err := db.Read().ListAudit(ctx, audit.Filter{RequestID: "req_details"})
		if err != nil || n != 1 {
			t.Fatalf("list: %d, %v", n, err)
		}
		if got[0].Action != `GET /api/v1/orders/\x00\xff` || got[0].EntityID != `a\x00b` ||
			got[0].Details["field"] != "title" || got[0].Details["value"] != `x\x00\u0085y` {
			t.Fatalf("entry = %+v", got[0])
		}
	})
}
