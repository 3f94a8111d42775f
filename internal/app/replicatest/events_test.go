package replicatest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/testkit"
)

// openRead starts a GET on s that the server holds (a long poll or a
// stream) and reports its status when its headers arrive (a stream) or it
// ends (a long poll) with the body; cancel ends it.
func openRead(t *testing.T, s *server, path string, h testkit.Header) (<-chan *answer, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+path, nil)
	req.Header.Set(h.Name, h.Value)
	ch := make(chan *answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- &answer{}
			return
		}
		defer resp.Body.Close()
		a := &answer{status: resp.StatusCode}
		if resp.Header.Get("Content-Type") == "text/event-stream" {
			ch <- a
			_, _ = io.Copy(io.Discard, resp.Body)
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(raw, &a.body)
		ch <- a
	}()
	return ch, cancel
}

// The event feed across processes (CONTRACT.md section 21): a long poll
// held by one replica answers a message sent through the other (no commit
// hook reaches across processes: the poller finds it) within about a
// second; a cursor one replica hands out reads on at the other; and with
// Redis the caps on open streams hold across replicas.
func TestEventFeedAcrossProcesses(t *testing.T) {
	base := os.Getenv("MARKETPLACE_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("MARKETPLACE_TEST_DATABASE_URL is not set: replicas share a PostgreSQL database")
	}
	redisURL := os.Getenv("MARKETPLACE_TEST_REDIS_URL")
	ctx := context.Background()
	dbURL := pgDatabase(t, base)
	db, err := app.Open(ctx, config.Config{DataDir: t.TempDir(), DatabaseURL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := testkit.Start(t, db, testkit.Options{})
	s.Clock.Advance(time.Since(s.Clock.Now()))
	s.RealTime.Advance(time.Since(s.RealTime.Now()))
	seller := s.VerifiedOwner("Fiona")
	buyer := s.NewShopper("Gus", "pm_card_visa")
	listing := s.ActiveListing(seller, "oak bookshelf five shelves tall", 9000)
	key := s.NewKey(seller, "buy_sell")

	one := start(t, "one", dbURL, s.App.Config.JWTSecret, "MARKETPLACE_REDIS_URL="+redisURL)
	two := start(t, "two", dbURL, s.App.Config.JWTSecret, "MARKETPLACE_REDIS_URL="+redisURL)

	head := one.do(http.StatusOK, "GET", "/api/v1/events", nil, seller.Auth())
	cursor, _ := head.body["meta"].(map[string]any)["cursor"].(string)
	// Two reads on from one's cursor at once.
	two.do(http.StatusOK, "GET", "/v1/events?after="+url.QueryEscape(cursor), nil, seller.Auth())

	for i, path := range []string{"/api/v1/events", "/v1/events"} {
		poll, _ := openRead(t, one, path+"?wait=20&after="+url.QueryEscape(cursor), seller.Auth())
		time.Sleep(500 * time.Millisecond) // held by now
		start := time.Now()
		two.do(http.StatusCreated, "POST", "/api/v1/messages", map[string]any{"listingId": listing, "content": "Still for sale?"}, buyer.Auth())
		var a *answer
		select {
		case a = <-poll:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: one's long poll was not woken by two's commit", path)
		}
		took := time.Since(start)
		t.Logf("%s: the message through two answered one's long poll after %v", path, took)
		var got []any
		if i == 0 {
			got, _ = a.body["data"].([]any)
			cursor, _ = a.body["meta"].(map[string]any)["cursor"].(string)
		} else {
			got, _ = a.data()["events"].([]any)
			cursor, _ = a.data()["cursor"].(string)
		}
		if a.status != http.StatusOK || len(got) != 1 || got[0].(map[string]any)["type"] != "message.received" {
			t.Fatalf("%s: %d %v", path, a.status, a.body)
		}
		if took > 10*time.Second {
			t.Fatalf("%s: answered after %v: the wait ran out rather than a wake", path, took)
		}
	}

	if redisURL == "" {
		t.Log("MARKETPLACE_TEST_REDIS_URL is not set: the caps are per replica, not checked across them")
		return
	}
	// Ten streams of one key, five on each replica: an eleventh on either
	// is refused; closing one frees a slot on the other.
	var cancels []context.CancelFunc
	for i := range 10 {
		srv := one
		if i%2 == 1 {
			srv = two
		}
		st, cancel := openRead(t, srv, "/v1/events/stream?after="+url.QueryEscape(cursor), key.Auth())
		if a := <-st; a.status != http.StatusOK {
			t.Fatalf("stream %d on %s: %d", i, srv.name, a.status)
		}
		cancels = append(cancels, cancel)
	}
	for _, srv := range []*server{one, two} {
		st, _ := openRead(t, srv, "/api/v1/events/stream?after="+url.QueryEscape(cursor), key.Auth())
		if a := <-st; a.status != http.StatusTooManyRequests || a.code() != "RATE_LIMITED" {
			t.Fatalf("11th stream of the key on %s: %d %v", srv.name, a.status, a.body)
		}
	}
	cancels[0]() // one of one's
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, cancel := openRead(t, two, "/v1/events/stream?after="+url.QueryEscape(cursor), key.Auth())
		a := <-st
		cancel()
		if a.status == http.StatusOK {
			break
		}
		if a.status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after closing a stream on one, two answers %d %v", a.status, a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range cancels {
		c()
	}
}
