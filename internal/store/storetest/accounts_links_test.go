package storetest

import (
	"context"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
	"marketplace/internal/store"
)

// The chat link lives on the user row: every read of a user carries it, a
// chat account links to one user at most, and a profile update never
// touches it.
func TestDiscordLinkStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var ann, bob *accounts.User
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			ann, bob = newUser(t, tx, "ann@example.com", "ann"), newUser(t, tx, "bob@example.com", "bob")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().UserByID(ctx, ann.ID); got.Discord != nil {
			t.Fatalf("new user linked: %+v", got.Discord)
		}
		link := &accounts.DiscordLink{DiscordUserID: "1234", DiscordUsername: "ann#1", LinkedAt: t0}
		set := func(userID string, l *accounts.DiscordLink) error {
			return db.InTx(ctx, func(tx *store.Tx) error { return tx.SetDiscordLink(ctx, userID, l, t0.Add(time.Hour)) })
		}
		if err := set(ann.ID, link); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().UserByDiscordID(ctx, "1234")
		if err != nil || got.ID != ann.ID || got.Discord == nil || *got.Discord != *link || !got.UpdatedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("by chat id: %+v %v", got, err)
		}
		wantCode(t, set(bob.ID, link), market.CodeInvalidState)
		_, err = db.Read().UserByDiscordID(ctx, "9999")
		wantCode(t, err, market.CodeNotFound)

		// A profile update written from a copy read before the link keeps
		// the link.
		ann.DisplayName = "Ann B"
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateUser(ctx, ann) }); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().UserByEmail(ctx, "ann@example.com"); got.Discord == nil || got.DisplayName != "Ann B" {
			t.Fatalf("after a profile update: %+v", got)
		}
		if err := set(ann.ID, nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().UserByUsername(ctx, "ann"); got.Discord != nil {
			t.Fatalf("unlinked user still linked: %+v", got.Discord)
		}
		// Freed, the chat account links to bob.
		if err := set(bob.ID, link); err != nil {
			t.Fatal(err)
		}
		wantCode(t, set(market.NewID(), nil), market.CodeNotFound)
	})
}

func TestDiscordCodesStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		code := func(hash, account string, expires time.Time) *accounts.DiscordCode {
			return &accounts.DiscordCode{Hash: hash, DiscordUserID: account, DiscordUsername: "n", ExpiresAt: expires, CreatedAt: t0}
		}
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			for _, c := range []*accounts.DiscordCode{
				code("h1", "a", t0.Add(15*time.Minute)), code("h2", "a", t0.Add(15*time.Minute)),
				code("h3", "b", t0.Add(15*time.Minute)), code("h4", "c", t0.Add(-time.Minute)),
			} {
				if err := tx.CreateDiscordCode(ctx, c); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().DiscordCodeByHash(ctx, "h3")
		if err != nil || got.DiscordUserID != "b" || got.UsedAt != nil || !got.ExpiresAt.Equal(t0.Add(15*time.Minute)) {
			t.Fatalf("code: %+v %v", got, err)
		}
		use := func(hash string) bool {
			var used bool
			if err := db.InTx(ctx, func(tx *store.Tx) (err error) { used, err = tx.UseDiscordCode(ctx, hash, t0); return err }); err != nil {
				t.Fatal(err)
			}
			return used
		}
		if !use("h3") || use("h3") {
			t.Fatal("a code used twice, or not at all")
		}
		if got, _ := db.Read().DiscordCodeByHash(ctx, "h3"); got.UsedAt == nil || !got.UsedAt.Equal(t0) {
			t.Fatalf("used code: %+v", got)
		}
		// Account a's codes and the expired one go; b's stays.
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteDiscordCodes(ctx, "a", t0) }); err != nil {
			t.Fatal(err)
		}
		for hash, want := range map[string]bool{"h1": false, "h2": false, "h3": true, "h4": false} {
			_, err := db.Read().DiscordCodeByHash(ctx, hash)
			if (err == nil) != want {
				t.Errorf("%s kept = %v, want %v", hash, err == nil, want)
			}
		}
	})
}

func TestAvatarUploadsStore(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var owner *accounts.User
		slot := &accounts.AvatarUpload{ID: market.NewID(), ExpiresAt: t0.Add(15 * time.Minute), CreatedAt: t0}
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			owner = newUser(t, tx, "o@example.com", "owner")
			slot.OwnerID = owner.ID
			return tx.CreateAvatarUpload(ctx, slot)
		}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().AvatarUploadByID(ctx, slot.ID)
		if err != nil || got.OwnerID != owner.ID || got.UploadedAt != nil || !got.ExpiresAt.Equal(slot.ExpiresAt) {
			t.Fatalf("slot: %+v %v", got, err)
		}
		at := t0.Add(time.Minute)
		mark := func() error {
			return db.InTx(ctx, func(tx *store.Tx) error {
				return tx.MarkAvatarUploaded(ctx, &accounts.AvatarUpload{ID: slot.ID, UploadedAt: &at, ContentType: "image/png", Size: 99})
			})
		}
		if err := mark(); err != nil {
			t.Fatal(err)
		}
		wantCode(t, mark(), market.CodeInvalidState)
		got, _ = db.Read().AvatarUploadByID(ctx, slot.ID)
		if got.UploadedAt == nil || !got.UploadedAt.Equal(at) || got.ContentType != "image/png" || got.Size != 99 {
			t.Fatalf("uploaded slot: %+v", got)
		}
		_, err = db.Read().AvatarUploadByID(ctx, market.NewID())
		wantCode(t, err, market.CodeNotFound)
	})
}
