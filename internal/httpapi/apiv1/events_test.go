package apiv1_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// feedRecord records a public event of typ for userID, as a cause would.
func feedRecord(t *testing.T, s *testkit.Server, userID, typ string) string {
	t.Helper()
	var id string
	err := s.App.DB.InTx(context.Background(), func(tx *store.Tx) error {
		id = market.NewID()
		return tx.AppendEvent(context.Background(), &events.Event{ID: id, Type: typ, ActorType: market.ActorSystem,
			EntityType: "listing", EntityID: "lst_" + id, Data: map[string]any{"listingId": "lst_" + id, "previousPrice": 100},
			CreatedAt: s.Clock.Now(), Recipients: []string{userID}})
	})
	if err != nil {
		t.Error(err)
	}
	return id
}

// feedPage reads a page of Variant A's feed: the event ids and the cursor.
func feedPage(t *testing.T, s *testkit.Server, auth testkit.Header, query string) ([]string, string) {
	t.Helper()
	r := s.Do("GET", "/api/v1/events?"+query, nil, auth).Want(t, http.StatusOK, "")
	var ids []string
	for _, e := range r.List() {
		ids = append(ids, e.(map[string]any)["id"].(string))
	}
	meta, _ := r.JSON["meta"].(map[string]any)
	cursor, _ := meta["cursor"].(string)
	if cursor == "" {
		t.Fatalf("no meta.cursor: %s", r.Body)
	}
	return ids, cursor
}

// TestEventFeed: paging with the cursor and a type filter, empty pages,
// parameter checks, an agent key reading its owner's feed on both
// surfaces, and who may read.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("feeder")
		other := s.VerifiedOwner("bystander")
		key := s.NewKey(owner, "buy_sell")

		s.Do("GET", "/api/v1/events", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/v1/events", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/api/v1/events/stream", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/v1/events", nil, testkit.AgentKey("mk_test_nope")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")

		start, c0 := feedPage(t, s, owner.Auth(), "")
		var want []string
		for i, typ := range []string{"listing.updated", "order.created", "listing.updated", "order.created", "offer.received"} {
			want = append(want, feedRecord(t, s, owner.ID, typ))
			if i == 2 {
				feedRecord(t, s, other.ID, typ)
			}
		}
		// On PostgreSQL a commit becomes readable once no older transaction
		// runs on the server (another session may hold one a moment): wait
		// for the last event, which makes the earlier ones readable too.
		if ids, _ := feedPage(t, s, owner.Auth(), "wait=10&types=offer.received&after="+url.QueryEscape(c0)); len(ids) != 1 {
			t.Fatalf("the last event did not arrive: %v", ids)
		}
		// Without a cursor: the last 30 days, so the new events and what was there.
		all, _ := feedPage(t, s, owner.Auth(), "limit=100")
		if len(all) != len(start)+5 || strings.Join(all[len(start):], ",") != strings.Join(want, ",") {
			t.Fatalf("first page %v, want %v after %v", all, want, start)
		}

		// Paging by two from c0.
		var got []string
		cursor := c0
		for range 3 {
			ids, next := feedPage(t, s, owner.Auth(), "limit=2&after="+url.QueryEscape(cursor))
			got = append(got, ids...)
			cursor = next
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("paged %v, want %v", got, want)
		}
		ids, same := feedPage(t, s, owner.Auth(), "after="+url.QueryEscape(cursor))
		if len(ids) != 0 || same != cursor {
			t.Fatalf("empty page: %v, cursor %q, want the one asked with %q", ids, same, cursor)
		}

		// Types filter.
		ids, _ = feedPage(t, s, owner.Auth(), "types=order.created,offer.received&after="+url.QueryEscape(c0))
		if strings.Join(ids, ",") != strings.Join([]string{want[1], want[3], want[4]}, ",") {
			t.Fatalf("filtered %v", ids)
		}

		// Parameter checks.
		for q, field := range map[string]string{
			"limit=0": "limit", "limit=101": "limit", "limit=x": "limit", "after=nope": "after",
			"after=" + url.QueryEscape(events.Cursor{TxID: 1}.String()[1:]): "after",
			"types=order.created,order.exploded":                            "types", "wait=31": "wait", "wait=-1": "wait",
		} {
			r := s.Do("GET", "/api/v1/events?"+q, nil, owner.Auth())
			testkit.WantFields(t, r, field)
			testkit.WantFields(t, s.Do("GET", "/v1/events?"+q, nil, key.Auth()), field)
		}
		testkit.WantFields(t, s.Do("GET", "/api/v1/events/stream?types=nope", nil, owner.Auth()), "types")
		r := s.Do("GET", "/v1/events/stream", nil, key.Auth(), testkit.Header{Name: "Last-Event-ID", Value: "garbage"})
		testkit.WantFields(t, r, "after")
		ids, _ = feedPage(t, s, owner.Auth(), "limit=100&after="+url.QueryEscape(c0))
		if len(ids) != 5 {
			t.Fatalf("limit=100 gave %d", len(ids))
		}

		// An agent key reads its owner's feed, on both surfaces.
		ids, _ = feedPage(t, s, key.Auth(), "after="+url.QueryEscape(c0))
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Fatalf("agent read %v", ids)
		}
		b := s.Do("GET", "/v1/events?limit=3&after="+url.QueryEscape(c0), nil, key.Auth()).Want(t, http.StatusOK, "").Data()
		evs, _ := b["events"].([]any)
		if len(evs) != 3 || b["cursor"] == "" {
			t.Fatalf("variant B page: %v", b)
		}
		e0 := evs[0].(map[string]any)
		if e0["id"] != want[0] || e0["created_at"] == nil || e0["data"].(map[string]any)["previous_price"] == nil {
			t.Fatalf("variant B event: %v", e0)
		}
		// Variant B's cursor reads on in Variant A and back.
		ids, _ = feedPage(t, s, owner.Auth(), "after="+url.QueryEscape(b["cursor"].(string)))
		if strings.Join(ids, ",") != strings.Join(want[3:], ",") {
			t.Fatalf("after B's cursor: %v", ids)
		}
		// The bystander sees only theirs.
		ids, _ = feedPage(t, s, other.Auth(), "wait=10")
		if len(ids) != 1 {
			t.Fatalf("bystander sees %v", ids)
		}
	})
}

// TestEventFeedLongPoll: a held read answers as soon as an event commits,
// well before its wait; without one it answers an empty page at the end of
// the wait, with the cursor it was asked with.
func TestEventFeedLongPoll(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("poller")
		key := s.NewKey(owner, "buy_sell")
		_, c0 := feedPage(t, s, owner.Auth(), "")

		start := time.Now()
		ids, c1 := feedPage(t, s, owner.Auth(), "wait=0.6&after="+url.QueryEscape(c0))
		if waited := time.Since(start); len(ids) != 0 || c1 != c0 || waited < 600*time.Millisecond || waited > 5*time.Second {
			t.Fatalf("empty wait: %v, cursor %q (asked %q), after %v", ids, c1, c0, waited)
		}

		for _, path := range []string{"/api/v1/events", "/v1/events"} {
			recorded := make(chan string, 1)
			delay := 300 * time.Millisecond
			go func() {
				time.Sleep(delay)
				recorded <- feedRecord(t, s, owner.ID, "message.received")
			}()
			start = time.Now()
			r := s.Do("GET", path+"?wait=20&after="+url.QueryEscape(c0), nil, key.Auth()).Want(t, http.StatusOK, "")
			took := time.Since(start)
			id := <-recorded
			var got []any
			if path == "/v1/events" {
				got, _ = r.Data()["events"].([]any)
				c0 = r.Data()["cursor"].(string)
			} else {
				got = r.List()
				c0 = r.JSON["meta"].(map[string]any)["cursor"].(string)
			}
			if len(got) != 1 || got[0].(map[string]any)["id"] != id {
				t.Fatalf("%s: long poll got %v, want %s", path, got, id)
			}
			// The event commits 300 ms in and the answer follows it, not the
			// end of the 20 s wait (how soon is a figure, logged, not a
			// threshold: a busy machine may take a second).
			t.Logf("%s: long poll answered %v after the request, %v after the commit", path, took, took-delay)
			if took >= 15*time.Second {
				t.Fatalf("%s: long poll waited for its wait to run out (%v) instead of answering the commit", path, took)
			}
		}
	})
}

// sseEvent is one event read from a stream.
type sseEvent struct{ id, typ, data string }

// sseOpen opens a stream; the returned function reads the next event
// (skipping comments) or fails after d.
func sseOpen(t *testing.T, s *testkit.Server, path string, h ...testkit.Header) (next func(d time.Duration) (sseEvent, bool), comments func() int, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	for _, x := range h {
		req.Header.Set(x.Name, x.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	stop = func() { cancel(); resp.Body.Close() }
	t.Cleanup(stop) // before the server's Close, which waits for the stream
	ch := make(chan sseEvent, 100)
	var ncomments int
	commentCh := make(chan struct{}, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.id != "" {
					ch <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, ":"):
				select {
				case commentCh <- struct{}{}:
				default:
				}
			case strings.HasPrefix(line, "id: "):
				e.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.typ = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			}
		}
	}()
	return func(d time.Duration) (sseEvent, bool) {
			select {
			case e, ok := <-ch:
				return e, ok
			case <-time.After(d):
				return sseEvent{}, false
			}
		}, func() int {
			for {
				select {
				case <-commentCh:
					ncomments++
				default:
					return ncomments
				}
			}
		}, stop
}

// TestEventStream: the stream delivers events as they commit, with the
// cursor as id; after the connection drops, a client resuming with
// Last-Event-ID gets the rest without repeats or gaps; heartbeats keep a
// quiet stream alive.
func TestEventStream(t *testing.T) {
	old := httpapi.StreamHeartbeat
	httpapi.StreamHeartbeat = 300 * time.Millisecond
	t.Cleanup(func() { httpapi.StreamHeartbeat = old })
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("streamer")
		key := s.NewKey(owner, "buy_sell")
		before := feedRecord(t, s, owner.ID, "listing.created")

		// Without a cursor the stream starts with the last 30 days.
		next, _, stop := sseOpen(t, s, "/api/v1/events/stream", owner.Auth())
		e, ok := next(5 * time.Second)
		if !ok || e.data == "" || !strings.Contains(e.data, before) || e.typ != "listing.created" {
			t.Fatalf("first event %+v", e)
		}
		c0 := e.id
		stop()

		next, comments, stop := sseOpen(t, s, "/api/v1/events/stream?after="+url.QueryEscape(c0), owner.Auth())
		var want []string
		for range 5 {
			want = append(want, feedRecord(t, s, owner.ID, "order.shipped"))
		}
		var last string
		for i := range 3 {
			e, ok := next(5 * time.Second)
			if !ok {
				t.Fatalf("event %d did not arrive", i)
			}
			var p map[string]any
			if err := json.Unmarshal([]byte(e.data), &p); err != nil {
				t.Fatal(err)
			}
			if p["id"] != want[i] || e.typ != "order.shipped" || p["createdAt"] == nil {
				t.Fatalf("event %d: %+v", i, e)
			}
			if _, ok := events.ParseCursor(e.id); !ok {
				t.Fatalf("id %q is not a cursor", e.id)
			}
			last = e.id
		}
		time.Sleep(800 * time.Millisecond)
		if comments() == 0 {
			t.Error("no heartbeat")
		}
		stop() // the connection drops with two events unread

		want = append(want, feedRecord(t, s, owner.ID, "order.delivered"))
		next, _, stop = sseOpen(t, s, "/v1/events/stream", key.Auth(), testkit.Header{Name: "Last-Event-ID", Value: last})
		defer stop()
		for i := 3; i < len(want); i++ {
			e, ok := next(5 * time.Second)
			if !ok {
				t.Fatalf("resumed event %d did not arrive", i)
			}
			var p map[string]any
			if err := json.Unmarshal([]byte(e.data), &p); err != nil {
				t.Fatal(err)
			}
			if p["id"] != want[i] || p["created_at"] == nil {
				t.Fatalf("resumed event %d: %+v, want %s", i, e, want[i])
			}
		}
		if e, ok := next(700 * time.Millisecond); ok {
			t.Fatalf("an extra event after resuming: %+v", e)
		}
	})
}

// TestEventStreamOutlivesServerTimeouts: the stream moves the server's
// read and write deadlines on, so a server with short timeouts (the
// service's are a minute) keeps streaming past them.
func TestEventStreamOutlivesServerTimeouts(t *testing.T) {
	old := httpapi.StreamHeartbeat
	httpapi.StreamHeartbeat = 200 * time.Millisecond
	t.Cleanup(func() { httpapi.StreamHeartbeat = old })
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("longstream")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: s.App.Handler(), ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
		short := &testkit.Server{T: t, URL: "http://" + ln.Addr().String(), App: s.App, Clock: s.Clock}

		next, _, stop := sseOpen(t, short, "/api/v1/events/stream", owner.Auth())
		defer stop()
		time.Sleep(1500 * time.Millisecond) // three times both timeouts
		id := feedRecord(t, s, owner.ID, "order.created")
		e, ok := next(5 * time.Second)
		if !ok || !strings.Contains(e.data, id) {
			t.Fatalf("after the timeouts: %+v %v", e, ok)
		}
	})
}

// TestEventFeedStoredCasings: an event stored before its data was named
// canonically (camelCase) reads as one recorded now (snake_case) on every
// surface, contentTrust for an agent key included: each surface spells
// both its way.
func TestEventFeedStoredCasings(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("reader")
		key := s.NewKey(owner, "buy_sell")
		record := func(data map[string]any) string {
			id := market.NewID()
			err := s.App.DB.InTx(context.Background(), func(tx *store.Tx) error {
				return tx.AppendEvent(context.Background(), &events.Event{ID: id, Type: "offer.received", ActorType: market.ActorUser,
					ActorID: "buyer-1", EntityType: "offer", EntityID: "off-1", Data: data, CreatedAt: s.Clock.Now(),
					Recipients: []string{owner.ID}})
			})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		old := record(map[string]any{"offerId": "off-1", "buyerId": "buyer-1", "sellerId": owner.ID, "offerPrice": 4000,
			"awaitingResponseFrom": "seller", "message": "Would you take 40?", "changes": []any{"floorPrice"}})
		now := record(map[string]any{"offer_id": "off-1", "buyer_id": "buyer-1", "seller_id": owner.ID, "offer_price": 4000,
			"awaiting_response_from": "seller", "message": "Would you take 40?", "changes": []any{"floorPrice"}})
		camel := `{"awaitingResponseFrom":"seller","buyerId":"buyer-1","changes":["floorPrice"],"message":"Would you take 40?","offerId":"off-1","offerPrice":4000,"sellerId":"` + owner.ID + `"}`
		snake := `{"awaiting_response_from":"seller","buyer_id":"buyer-1","changes":["floorPrice"],"message":"Would you take 40?","offer_id":"off-1","offer_price":4000,"seller_id":"` + owner.ID + `"}`
		trust := `{"fields":[],"flags":[],"source":"offer","untrusted":true}`
		for _, c := range []struct {
			name, path string
			auth       testkit.Header
			want       string
		}{
			{"Variant A, bearer", "/api/v1/events?wait=10", owner.Auth(), camel},
			{"Variant A, agent key", "/api/v1/events?wait=10", key.Auth(), camel[:len(camel)-1] + `,"contentTrust":` + trust + "}"},
			{"Variant B, agent key", "/v1/events?wait=10", key.Auth(), snake[:len(snake)-1] + `,"content_trust":` + trust + "}"},
		} {
			var list []any
			// On PostgreSQL both become readable once the older transactions
			// of the whole server end, which the tests beside this one hold.
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
				r := s.Do("GET", c.path, nil, c.auth).Want(t, http.StatusOK, "")
				if list = r.List(); c.path == "/v1/events?wait=10" {
					list, _ = r.Data()["events"].([]any)
				}
				if len(list) >= 2 {
					break
				}
			}
			got := map[string]string{}
			for _, e := range list {
				m := e.(map[string]any)
				b, _ := json.Marshal(m["data"])
				got[m["id"].(string)] = string(b)
			}
			for _, id := range []string{old, now} {
				if !jsonEqual(got[id], c.want) {
					t.Errorf("%s, event %s:\n got %s\nwant %s", c.name, id, got[id], c.want)
				}
			}
		}
	})
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
