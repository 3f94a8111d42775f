package apiv1_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/testkit"
)

// heldPoll starts a long poll of the longest wait (wait=30) and returns
// how it ended once it ends; stop ends it from the client's side.
func heldPoll(t *testing.T, s *testkit.Server, path string, auth testkit.Header, after string) (answer <-chan pollAnswer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+path+"?wait=30&after="+url.QueryEscape(after), nil)
	req.Header.Set(auth.Name, auth.Value)
	ch := make(chan pollAnswer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- pollAnswer{err: err.Error(), at: time.Now()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- pollAnswer{status: resp.StatusCode, body: string(b), at: time.Now()}
	}()
	return ch, cancel
}

// pollAnswer is how a long poll ended: its status and body, or the error
// that ended it on the client's side (status 0); and when.
type pollAnswer struct {
	status    int
	body, err string
	at        time.Time
}

// streamAttempt asks for a stream and returns the answer when it is
// refused; a stream that opens is closed at once and answered as a bare
// 200 (so a test of a refusal fails rather than hangs).
func streamAttempt(t *testing.T, s *testkit.Server, path string, h ...testkit.Header) *testkit.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	for _, x := range h {
		req.Header.Set(x.Name, x.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := &testkit.Response{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode == http.StatusOK {
		return out
	}
	out.Body, _ = io.ReadAll(resp.Body)
	if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, out.Body)
	}
	return out
}

// wantBusy fails unless r is 429 RATE_LIMITED with Retry-After.
func wantBusy(t *testing.T, what string, r *testkit.Response) {
	t.Helper()
	if r.Status != http.StatusTooManyRequests || r.Code() != "RATE_LIMITED" || r.Header.Get("Retry-After") != "5" {
		t.Fatalf("%s: %d %q Retry-After %q, want 429 RATE_LIMITED with Retry-After 5\n%s", what, r.Status, r.Code(),
			r.Header.Get("Retry-After"), r.Body)
	}
}

// waitingReaches waits until n readers wait on s, then a moment more for
// the last ones to take their slot (a long poll takes it after its first
// read).
func waitingReaches(t *testing.T, s *testkit.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.App.Feed.Waiting() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d readers waiting, want %d", s.App.Feed.Waiting(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
}

// TestEventFeedCaps: an agent key holds at most 10 streams and long polls
// open at once, a user (all their keys and tokens) 20; the next is refused
// with 429 RATE_LIMITED and Retry-After, on every surface, and closing one
// frees its slot. A long poll that has events to answer at once takes no
// slot.
func TestEventFeedCaps(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("capped")
		k1, k2, k3 := s.NewKey(owner, "buy_sell"), s.NewKey(owner, "buy_sell"), s.NewKey(owner, "buy_sell")
		_, c0 := feedPage(t, s, owner.Auth(), "")
		after := "?after=" + url.QueryEscape(c0)

		// Ten streams of key 1, on both surfaces; the eleventh is refused,
		// and so is a long poll of the same key.
		var stops []func()
		for i := range 10 {
			path := "/api/v1/events/stream"
			if i%2 == 1 {
				path = "/v1/events/stream"
			}
			_, _, stop := sseOpen(t, s, path+after, k1.Auth())
			stops = append(stops, stop)
		}
		wantBusy(t, "11th stream of a key", streamAttempt(t, s, "/v1/events/stream"+after, k1.Auth()))
		start := time.Now()
		wantBusy(t, "long poll of a full key", s.Do("GET", "/api/v1/events"+after+"&wait=5", nil, k1.Auth()))
		if time.Since(start) > 3*time.Second {
			t.Fatalf("the refused long poll waited %v", time.Since(start))
		}
		// A read with something to answer needs no slot. (On PostgreSQL an
		// entry is readable once no older transaction runs on the server,
		// which other tests share: wait for it without holding a slot.)
		feedRecord(t, s, owner.ID, "order.created")
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if ids, _ := feedPage(t, s, owner.Auth(), "after="+url.QueryEscape(c0)); len(ids) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the recorded event never became readable")
			}
		}
		if ids, _ := feedPage(t, s, k1.Auth(), "wait=5&after="+url.QueryEscape(c0)); len(ids) != 1 {
			t.Fatalf("an answered long poll of a full key: %v", ids)
		}
		_, c1 := feedPage(t, s, owner.Auth(), "wait=5&after="+url.QueryEscape(c0))
		after = "?after=" + url.QueryEscape(c1)

		// Nine long polls of key 2 and a stream of key 3: the user's twenty.
		var polls []<-chan pollAnswer
		for range 9 {
			st, stop := heldPoll(t, s, "/v1/events", k2.Auth(), c1)
			polls = append(polls, st)
			stops = append(stops, stop)
		}
		waitingReaches(t, s, 19)
		_, _, stop := sseOpen(t, s, "/api/v1/events/stream"+after, k3.Auth())
		stops = append(stops, stop)
		wantBusy(t, "a key of a full user, stream", streamAttempt(t, s, "/api/v1/events/stream"+after, k3.Auth()))
		wantBusy(t, "a key of a full user, long poll", s.Do("GET", "/v1/events"+after+"&wait=2", nil, k3.Auth()))
		wantBusy(t, "the user's bearer token", s.Do("GET", "/api/v1/events"+after+"&wait=2", nil, owner.Auth()))
		if page, isErr := mcpTool(t, s, k3.Secret, "get_events", map[string]any{"after": c1, "wait": 2}); !isErr || page["code"] != "RATE_LIMITED" {
			t.Fatalf("get_events of a full user: %v", page)
		}
		// Without wait nothing is held: reads go on.
		feedPage(t, s, owner.Auth(), "after="+url.QueryEscape(c1))

		// Closing a stream of key 1 frees a slot of the key and the user.
		stops[0]()
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := s.Do("GET", "/api/v1/events"+after+"&wait=0.5", nil, k1.Auth())
			if r.Status == http.StatusOK {
				break
			}
			wantBusy(t, "while the closed stream ends", r)
			if time.Now().After(deadline) {
				t.Fatal("closing a stream freed no slot")
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, stop := range stops {
			stop()
		}
		for _, st := range polls {
			if code := (<-st).status; code != 0 && code != http.StatusOK {
				t.Fatalf("a held long poll ended with %d", code)
			}
		}
	})
}

// TestEventFeedCursorAhead: a cursor beyond the newest event of the feed
// (no event will ever come after it) is refused with 400 VALIDATION_ERROR
// naming after, on both surfaces, the streams (Last-Event-ID too) and
// get_events, instead of holding the reader for ever; the head itself is
// fine.
func TestEventFeedCursorAhead(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.VerifiedOwner("ahead")
		key := s.NewKey(owner, "buy_sell")
		_, c0 := feedPage(t, s, owner.Auth(), "")
		head, _ := events.ParseCursor(c0)
		ahead := events.Cursor{TxID: head.TxID + 1_000_000, Seq: head.Seq + 1_000_000}.String()
		q := "after=" + url.QueryEscape(ahead)

		if ids, c := feedPage(t, s, key.Auth(), "wait=0.2&after="+url.QueryEscape(c0)); len(ids) != 0 || c != c0 {
			t.Fatalf("at the head: %v %q", ids, c)
		}
		start := time.Now()
		testkit.WantFields(t, s.Do("GET", "/api/v1/events?wait=20&"+q, nil, owner.Auth()), "after")
		testkit.WantFields(t, s.Do("GET", "/v1/events?wait=20&"+q, nil, key.Auth()), "after")
		testkit.WantFields(t, streamAttempt(t, s, "/api/v1/events/stream?"+q, key.Auth()), "after")
		testkit.WantFields(t, streamAttempt(t, s, "/v1/events/stream", key.Auth(), testkit.Header{Name: "Last-Event-ID", Value: ahead}), "after")
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("refusing took %v", took)
		}
		if page, isErr := mcpTool(t, s, key.Secret, "get_events", map[string]any{"after": ahead}); !isErr || page["code"] != "VALIDATION_ERROR" {
			t.Fatalf("get_events ahead: %v", page)
		}
		// The same cursor once the feed has moved past it is fine.
		id := feedRecord(t, s, owner.ID, "order.created")
		if ids, _ := feedPage(t, s, owner.Auth(), "wait=10&after="+url.QueryEscape(c0)); len(ids) != 1 || ids[0] != id {
			t.Fatalf("after the head: %v", ids)
		}
	})
}

// TestEventFeedFreshCursorOtherReplica: a cursor one replica handed out a
// moment ago, while events commit, is never refused by another replica
// that has not seen it.
func TestEventFeedFreshCursorOtherReplica(t *testing.T) {
	t.Parallel()
	twoReplicas(t, func(t *testing.T, one, two *testkit.Server) {
		owner := one.VerifiedOwner("fresh")
		other := one.VerifiedOwner("fresh-other")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				feedRecord(t, one, []string{owner.ID, other.ID}[i%2], "order.created")
			}
		}()
		defer wg.Wait()
		defer close(stop)
		_, cur := feedPage(t, one, owner.Auth(), "")
		for i := range 60 {
			from, to := one, two
			if i%2 == 1 {
				from, to = two, one
			}
			_, cur = feedPage(t, from, owner.Auth(), "limit=3&after="+url.QueryEscape(cur))
			// The other replica reads on from it at once.
			_, cur = feedPage(t, to, owner.Auth(), "limit=3&after="+url.QueryEscape(cur))
			// And a first page's head, too.
			_, head := feedPage(t, from, other.Auth(), "limit=1")
			if i%10 == 0 {
				feedPage(t, to, other.Auth(), "after="+url.QueryEscape(head))
			}
		}
	})
}

// TestEventFeedOtherReplica: a long poll held by one replica answers an
// event committed through another (whose commit hook wakes only its own
// readers here) within about a second of the event becoming readable, on
// both engines. On PostgreSQL an entry becomes readable once every older
// transaction of the whole server has ended, which the tests running
// beside this one can hold for seconds; so the time is counted from the
// moment a plain read through the other replica sees the event.
func TestEventFeedOtherReplica(t *testing.T) {
	t.Parallel()
	twoReplicas(t, func(t *testing.T, one, two *testkit.Server) {
		owner := one.VerifiedOwner("replica-reader")
		_, c0 := feedPage(t, one, owner.Auth(), "")
		for _, path := range []string{"/api/v1/events", "/v1/events"} {
			for try := 1; ; try++ {
				answer, _ := heldPoll(t, one, path, owner.Auth(), c0)
				waitingReaches(t, one, 1)
				id := feedRecord(t, two, owner.ID, "message.received")
				readable := readableAt(t, two, owner.Auth(), c0, id)
				var got pollAnswer
				select {
				case got = <-answer:
				case <-time.After(time.Until(readable.Add(10 * time.Second))):
					t.Fatalf("%s: the long poll was not woken within 10 s of the other replica's commit becoming readable", path)
				}
				_, c0 = feedPage(t, one, owner.Auth(), "after="+url.QueryEscape(c0))
				if got.status != http.StatusOK {
					t.Fatalf("%s: the long poll ended with %d %s%s", path, got.status, got.body, got.err)
				}
				if strings.Contains(got.body, id) {
					t.Logf("%s: the long poll answered %v after the other replica's commit became readable", path, got.at.Sub(readable))
					break
				}
				// An empty answer is right only when the poll's 30 s ran
				// out before the event was readable; then try again.
				if got.at.After(readable) || try == 3 {
					t.Fatalf("%s: the long poll answered without the event (try %d): %s", path, try, got.body)
				}
				t.Logf("%s: the event became readable only after the poll's 30 s; again", path)
			}
		}
	})
}

// readableAt reads s's feed after the cursor, without waiting, until the
// event id shows (at most 90 s), and returns when it did.
func readableAt(t *testing.T, s *testkit.Server, auth testkit.Header, after, id string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ids, _ := feedPage(t, s, auth, "after="+url.QueryEscape(after))
		if slices.Contains(ids, id) {
			return time.Now()
		}
	}
	t.Fatalf("event %s was not readable through the other replica within 90 s", id)
	return time.Time{}
}
