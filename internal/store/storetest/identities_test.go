package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// TestIdentities: a subject links to one user and a user to one account
// per provider, each refused as AlreadyLinked says.
func TestIdentities(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var a, b *accounts.User
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			a, b = newUser(t, tx, "ida@example.com", "ida"), newUser(t, tx, "ivo@example.com", "ivo")
			return tx.CreateIdentity(ctx, &accounts.Identity{Provider: "google", Subject: "sub-1", UserID: a.ID, Email: "ida@gmail.example", CreatedAt: t0})
		}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().IdentityBySubject(ctx, "google", "sub-1")
		if err != nil || got.UserID != a.ID || got.Email != "ida@gmail.example" || !got.CreatedAt.Equal(t0) {
			t.Fatalf("by subject: %+v %v", got, err)
		}
		if got, err := db.Read().IdentityOfUser(ctx, "google", a.ID); err != nil || got.Subject != "sub-1" {
			t.Fatalf("of user: %+v %v", got, err)
		}
		_, err = db.Read().IdentityOfUser(ctx, "google", b.ID)
		wantCode(t, err, market.CodeNotFound)
		_, err = db.Read().IdentityBySubject(ctx, "other-provider", "sub-1")
		wantCode(t, err, market.CodeNotFound)

		link := func(subject, userID string) error {
			return db.InTx(ctx, func(tx *store.Tx) error {
				return tx.CreateIdentity(ctx, &accounts.Identity{Provider: "google", Subject: subject, UserID: userID, CreatedAt: t0})
			})
		}
		err = link("sub-1", b.ID)
		wantCode(t, err, market.CodeInvalidState)
		if err.Error() != accounts.AlreadyLinked(true).Error() {
			t.Errorf("subject taken: %v", err)
		}
		err = link("sub-2", a.ID)
		wantCode(t, err, market.CodeInvalidState)
		if err.Error() != accounts.AlreadyLinked(false).Error() {
			t.Errorf("user linked already: %v", err)
		}
		if err := link("sub-2", b.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOIDCStates: a state is taken once, and expired ones are swept.
func TestOIDCStates(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var u *accounts.User
		put := func(id, link string, expires time.Time) {
			t.Helper()
			if err := db.InTx(ctx, func(tx *store.Tx) error {
				return tx.CreateOIDCState(ctx, &accounts.OIDCState{ID: id, Nonce: "n-" + id, Verifier: "v-" + id, ReturnTo: "/r",
					LinkUserID: link, CreatedAt: t0, ExpiresAt: expires})
			}); err != nil {
				t.Fatal(err)
			}
		}
		take := func(id string) (*accounts.OIDCState, error) {
			var st *accounts.OIDCState
			err := db.InTx(ctx, func(tx *store.Tx) error {
				var err error
				st, err = tx.TakeOIDCState(ctx, id)
				return err
			})
			return st, err
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error { u = newUser(t, tx, "st@example.com", "stella"); return nil }); err != nil {
			t.Fatal(err)
		}
		put("s1", "", t0.Add(10*time.Minute))
		put("s2", u.ID, t0.Add(10*time.Minute))
		put("s3", "", t0.Add(time.Minute))

		st, err := take("s2")
		if err != nil || st.Nonce != "n-s2" || st.Verifier != "v-s2" || st.ReturnTo != "/r" || st.LinkUserID != u.ID ||
			!st.CreatedAt.Equal(t0) || !st.ExpiresAt.Equal(t0.Add(10*time.Minute)) {
			t.Fatalf("take: %+v %v", st, err)
		}
		_, err = take("s2")
		wantCode(t, err, market.CodeNotFound)
		if st, err := take("s1"); err != nil || st.LinkUserID != "" {
			t.Fatalf("take s1: %+v %v", st, err)
		}

		put("s4", "", t0.Add(10*time.Minute))
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteExpiredOIDCStates(ctx, t0.Add(time.Minute)) }); err != nil {
			t.Fatal(err)
		}
		_, err = take("s3")
		wantCode(t, err, market.CodeNotFound)
		if _, err := take("s4"); err != nil {
			t.Fatalf("a live state was swept: %v", err)
		}
	})
}
