package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// TestConsoleSessions: a session is found by its hash with its times, a
// touch moves its last use, and the deletes end one session, a user's
// sessions, and the expired ones, leaving the rest.
func TestConsoleSessions(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var a, b *accounts.User
		sess := func(hash string, u *accounts.User, expires time.Time) *accounts.Session {
			return &accounts.Session{Hash: hash, UserID: u.ID, CreatedAt: t0, SeenAt: t0, ExpiresAt: expires}
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			a, b = newUser(t, tx, "sam@example.com", "sam"), newUser(t, tx, "sue@example.com", "sue")
			for _, s := range []*accounts.Session{
				sess("a1", a, t0.Add(time.Hour)), sess("a2", a, t0.Add(time.Hour)),
				sess("b1", b, t0.Add(time.Hour)), sess("b-old", b, t0.Add(time.Minute)),
			} {
				if err := tx.CreateSession(ctx, s); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().SessionByHash(ctx, "a1")
		if err != nil || got.UserID != a.ID || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("a1 = %+v, %v", got, err)
		}
		write := func(fn func(tx *store.Tx) error) error { return db.InTx(ctx, fn) }
		if err := write(func(tx *store.Tx) error { return tx.CreateSession(ctx, sess("a1", a, t0)) }); err == nil {
			t.Fatal("a second session with the same hash was stored")
		}
		seen := t0.Add(5 * time.Minute)
		if err := write(func(tx *store.Tx) error { return tx.TouchSession(ctx, "a1", seen) }); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().SessionByHash(ctx, "a1"); !got.SeenAt.Equal(seen) {
			t.Fatalf("seen after touch = %v, want %v", got.SeenAt, seen)
		}

		if err := write(func(tx *store.Tx) error { return tx.DeleteSession(ctx, "a2") }); err != nil {
			t.Fatal(err)
		}
		if err := write(func(tx *store.Tx) error { return tx.DeleteSession(ctx, "a2") }); err != nil {
			t.Fatalf("ending a session already ended: %v", err)
		}
		// Expired before the cutoff: b-old goes, b1 stays.
		if err := write(func(tx *store.Tx) error { return tx.DeleteUserSessions(ctx, "", t0.Add(30*time.Minute)) }); err != nil {
			t.Fatal(err)
		}
		left := func() (out []string) {
			for _, h := range []string{"a1", "a2", "b1", "b-old"} {
				_, err := db.Read().SessionByHash(ctx, h)
				if err == nil {
					out = append(out, h)
				} else {
					wantCode(t, err, market.CodeNotFound)
				}
			}
			return out
		}
		if l := left(); len(l) != 2 || l[0] != "a1" || l[1] != "b1" {
			t.Fatalf("after the deletes %v are left, want [a1 b1]", l)
		}
		if err := write(func(tx *store.Tx) error { return tx.DeleteUserSessions(ctx, a.ID, t0) }); err != nil {
			t.Fatal(err)
		}
		if l := left(); len(l) != 1 || l[0] != "b1" {
			t.Fatalf("after ending sam's sessions %v are left, want [b1]", l)
		}
	})
}
