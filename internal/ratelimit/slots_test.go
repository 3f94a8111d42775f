package ratelimit_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"marketplace/internal/ratelimit"
)

// TestSlots: the behaviour both Slots share. A slot is held until it is
// given back; Take takes every key's slot or none; a key without a cap
// never refuses.
func TestSlots(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T) ratelimit.Slots{
		"memory": func(*testing.T) ratelimit.Slots { return ratelimit.NewMemorySlots() },
		"redis": func(t *testing.T) ratelimit.Slots {
			client, prefix := testRedis(t)
			return ratelimit.NewRedisSlots(client, prefix, nil)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := mk(t)
			ctx := context.Background()
			key := ratelimit.SlotKey{Key: "key:k1", Max: 2}
			user := ratelimit.SlotKey{Key: "user:u1", Max: 3}
			take := func(keys ...ratelimit.SlotKey) (func(), string) {
				t.Helper()
				release, full, err := s.Take(ctx, keys)
				if err != nil {
					t.Fatal(err)
				}
				if full != nil {
					if release != nil {
						t.Fatal("a refused Take gave a release")
					}
					return nil, full.Key
				}
				return release, ""
			}
			r1, _ := take(key, user)
			r2, _ := take(key, user)
			if _, full := take(key, user); full != "key:k1" {
				t.Fatalf("third slot of key: full %q, want key:k1", full)
			}
			// The refused Take took nothing of the user's: one more without the key fits.
			r3, _ := take(user)
			if _, full := take(ratelimit.SlotKey{Key: "key:k2", Max: 2}, user); full != "user:u1" {
				t.Fatalf("fourth slot of user: full %q, want user:u1", full)
			}
			// ... and took nothing of key:k2 either.
			r4, _ := take(ratelimit.SlotKey{Key: "key:k2", Max: 1})
			r1()
			r1() // twice is harmless
			r5, full := take(key, user)
			if full != "" {
				t.Fatalf("after a release: full %q", full)
			}
			if _, full := take(key); full != "key:k1" {
				t.Fatalf("key after taking the freed slot: full %q", full)
			}
			for range 5 {
				if _, full := take(ratelimit.SlotKey{Key: "uncapped", Max: 0}); full != "" {
					t.Fatalf("an uncapped key refused")
				}
			}
			for _, r := range []func(){r2, r3, r4, r5} {
				r()
			}
			r6, _ := take(key, user)
			r7, full := take(key, user)
			if full != "" {
				t.Fatalf("after every release: full %q", full)
			}
			r6()
			r7()
		})
	}
}

// TestRedisSlotsShared: two replicas share the caps; a held slot is
// renewed for as long as it is held; the slot of a replica that stopped
// renewing (it died) frees itself when its lease ends.
func TestRedisSlotsShared(t *testing.T) {
	client, prefix := testRedis(t)
	ctx := context.Background()
	one := ratelimit.NewRedisSlots(client, prefix, nil)
	two := ratelimit.NewRedisSlots(client, prefix, nil)
	one.SetLease(300 * time.Millisecond)
	two.SetLease(300 * time.Millisecond)
	k := []ratelimit.SlotKey{{Key: "user:shared", Max: 1}}

	release, full, err := one.Take(ctx, k)
	if err != nil || full != nil {
		t.Fatalf("first take: %v %v", full, err)
	}
	// Held five leases long: renewed, so the other replica stays refused.
	for range 10 {
		time.Sleep(150 * time.Millisecond)
		if _, full, err := two.Take(ctx, k); err != nil || full == nil {
			t.Fatalf("the other replica took a held slot (%v)", err)
		}
	}
	release()
	r2, full, err := two.Take(ctx, k)
	if err != nil || full != nil {
		t.Fatalf("after the release: %v %v", full, err)
	}
	r2()
	if one.Held() != 0 || two.Held() != 0 {
		t.Fatalf("leases left: %d %d", one.Held(), two.Held())
	}

	// A replica whose clock is a minute behind took its lease a minute ago,
	// as a replica that died then: its slot has ended for the others.
	dead := ratelimit.NewRedisSlots(client, prefix, func() time.Time { return time.Now().Add(-time.Minute) })
	rd, full, err := dead.Take(ctx, k)
	if err != nil || full != nil {
		t.Fatalf("dead replica's take: %v %v", full, err)
	}
	defer rd()
	r3, full, err := two.Take(ctx, k)
	if err != nil || full != nil {
		t.Fatalf("an ended lease still counts: %v %v", full, err)
	}
	r3()
}

// brokenSlots fails every Take.
type brokenSlots struct{}

func (brokenSlots) Take(context.Context, []ratelimit.SlotKey) (func(), *ratelimit.SlotKey, error) {
	return nil, nil, errors.New("down")
}

// TestSlotsFallback: while the shared store fails, the caps hold in the
// process.
func TestSlotsFallback(t *testing.T) {
	local := ratelimit.NewMemorySlots()
	f := ratelimit.NewSlotsFallback(brokenSlots{}, local, time.Minute, slog.New(slog.DiscardHandler))
	k := []ratelimit.SlotKey{{Key: "u", Max: 1}}
	release, full, err := f.Take(context.Background(), k)
	if err != nil || full != nil || local.Open("u") != 1 {
		t.Fatalf("fallback take: %v %v, local %d", full, err, local.Open("u"))
	}
	if _, full, _ := f.Take(context.Background(), k); full == nil {
		t.Fatal("the local cap did not hold")
	}
	release()
	if local.Open("u") != 0 {
		t.Fatal("the release did not reach the local slots")
	}
}
