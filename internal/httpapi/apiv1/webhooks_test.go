package apiv1_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/config"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/testkit"
)

// hookCall is one request a receiver got.
type hookCall struct {
	ID, Timestamp, Signature string
	Body                     []byte
	JSON                     map[string]any
}

// receiver is a local webhook endpoint that records every request and
// answers with status().
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []hookCall
	status func(n int) int // n: 1-based request count
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{status: func(int) int { return http.StatusOK }}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c := hookCall{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"), Body: body}
		_ = json.Unmarshal(body, &c.JSON)
		rc.mu.Lock()
		rc.calls = append(rc.calls, c)
		n := len(rc.calls)
		st := rc.status
		rc.mu.Unlock()
		w.WriteHeader(st(n))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setStatus(f func(n int) int) {
	rc.mu.Lock()
	rc.status = f
	rc.mu.Unlock()
}

func (rc *receiver) all() []hookCall {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookCall(nil), rc.calls...)
}

// waitFor waits until a call satisfies ok, and returns it.
func (rc *receiver) waitFor(t *testing.T, what string, within time.Duration, ok func(hookCall) bool) hookCall {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, c := range rc.all() {
			if ok(c) {
				return c
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s within %v; got %d calls", what, within, len(rc.all()))
	return hookCall{}
}

func ofType(typ string) func(hookCall) bool {
	return func(c hookCall) bool { return c.JSON["type"] == typ }
}

// verifySignature checks a call the way a receiver would, written here
// from the Standard Webhooks specification rather than with the service's
// code.
func verifySignature(t *testing.T, secret string, c hookCall) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") || len(key) != 32 {
		t.Fatalf("secret %q", secret)
	}
	ts, err := strconv.ParseInt(c.Timestamp, 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		t.Fatalf("webhook-timestamp %q is not the current real time", c.Timestamp)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(c.ID + "." + c.Timestamp + "."))
	mac.Write(c.Body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	found := false
	for _, sig := range strings.Fields(c.Signature) {
		found = found || hmac.Equal([]byte(sig), []byte(want))
	}
	if !found {
		t.Fatalf("signature %q does not verify (want %q)", c.Signature, want)
	}
	if c.ID == "" || c.ID != c.JSON["id"] {
		t.Fatalf("webhook-id %q, body id %v", c.ID, c.JSON["id"])
	}
}

// TestWebhookDelivery: events reach the account endpoint (camelCase) and
// an agent endpoint (snake_case, filtered), signed; the test event goes to
// the account endpoint only; the log shows each delivery.
func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("hookseller")
		listing := s.ActiveListing(seller, "Walnut bookshelf with five shelves", 12000)
		buyer := s.Register("hookbuyer")
		acct, agentRcv := newReceiver(t), newReceiver(t)

		put := s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": acct.URL + "/hook"}, seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		secret, _ := put["secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || put["enabled"] != true || put["url"] != acct.URL+"/hook" {
			t.Fatalf("PUT webhook = %v", put)
		}
		got := s.Do("GET", "/api/v1/auth/me/webhook", nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if _, has := got["secret"]; has || got["url"] != acct.URL+"/hook" {
			t.Fatalf("GET webhook shows %v", got)
		}

		key := s.NewKey(seller, "sell")
		created := s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": agentRcv.URL, "events": []string{"message.received"}},
			key.Auth()).Want(t, http.StatusCreated, "").Data()
		agentSecret, _ := created["secret"].(string)
		if !strings.HasPrefix(agentSecret, "whsec_") || created["enabled"] != true || created["created_at"] == nil {
			t.Fatalf("POST /v1/agent/webhooks = %v", created)
		}

		msgSend(t, s, "/api/v1/messages", buyer.Auth(), listing, "Does it come apart for moving?")

		c := acct.waitFor(t, "message.received at the account endpoint", 10*time.Second, ofType("message.received"))
		verifySignature(t, secret, c)
		if c.JSON["createdAt"] == nil || c.JSON["data"] == nil {
			t.Fatalf("account payload %s", c.Body)
		}
		ac := agentRcv.waitFor(t, "message.received at the agent endpoint", 10*time.Second, ofType("message.received"))
		verifySignature(t, agentSecret, ac)
		if ac.JSON["created_at"] == nil || ac.ID != c.ID {
			t.Fatalf("agent payload %s (account got %s)", ac.Body, c.ID)
		}
		for k := range ac.JSON["data"].(map[string]any) {
			if strings.ToLower(k) != k {
				t.Fatalf("agent payload has camelCase key %q: %s", k, ac.Body)
			}
		}

		// The test event: the account endpoint only.
		test := s.Do("POST", "/api/v1/auth/me/webhook/test", nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if test["deliveryId"] == nil {
			t.Fatalf("test = %v", test)
		}
		tc := acct.waitFor(t, "webhook.test", 10*time.Second, ofType("webhook.test"))
		verifySignature(t, secret, tc)
		time.Sleep(300 * time.Millisecond)
		for _, x := range agentRcv.all() {
			if x.JSON["type"] == "webhook.test" {
				t.Fatal("the test event reached an agent endpoint")
			}
		}

		// The logs.
		waitDelivered(t, s, "/api/v1/auth/me/webhook/deliveries", seller.Auth(), 2)
		log := s.Do("GET", "/api/v1/auth/me/webhook/deliveries", nil, seller.Auth()).Want(t, http.StatusOK, "").List()
		first := log[0].(map[string]any)
		if first["id"] != test["deliveryId"] || first["eventType"] != "webhook.test" || first["status"] != "delivered" ||
			testkit.Num(t, first, "attempts") != 1 || len(first["attemptLog"].([]any)) != 1 {
			t.Fatalf("newest delivery = %v", first)
		}
		bl := s.Do("GET", "/v1/agent/webhooks/"+created["id"].(string)+"/deliveries", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
		ds := bl["deliveries"].([]any)
		if len(ds) != 1 || ds[0].(map[string]any)["event_id"] != c.ID || ds[0].(map[string]any)["status"] != "delivered" {
			t.Fatalf("agent deliveries = %v", bl)
		}
		list := s.Do("GET", "/v1/agent/webhooks", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
		if ws := list["webhooks"].([]any); len(ws) != 1 || ws[0].(map[string]any)["secret"] != nil {
			t.Fatalf("list = %v", list)
		}

		// A PUT rotates the secret.
		again := s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": acct.URL + "/hook"}, seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		if again["secret"] == secret {
			t.Fatal("PUT kept the secret")
		}
	})
}

// waitDelivered waits until the newest n deliveries of a log are
// delivered.
func waitDelivered(t *testing.T, s *testkit.Server, path string, auth testkit.Header, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		list := s.Do("GET", path, nil, auth).Want(t, http.StatusOK, "").List()
		done := 0
		for _, x := range list {
			if x.(map[string]any)["status"] == "delivered" {
				done++
			}
		}
		if done >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d delivered: %v", done, n, list)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWebhookRetries: a receiver that answers 500 for a while gets every
// event once it recovers (at least once each, none lost); every attempt is
// in the log; a 410 disables the endpoint; replay sends again with the
// same webhook-id, and a PUT enables the endpoint again.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		s.App.Webhooks.SetRetryDelays([]time.Duration{200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond,
			200 * time.Millisecond, 200 * time.Millisecond})
		seller := s.VerifiedOwner("retryseller")
		listing := s.ActiveListing(seller, "Cast iron skillet, twelve inch", 3500)
		buyer := s.Register("retrybuyer")
		rc := newReceiver(t)
		down := true
		var mu sync.Mutex
		rc.setStatus(func(int) int {
			mu.Lock()
			defer mu.Unlock()
			if down {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		put := s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": rc.URL}, seller.Auth()).Want(t, http.StatusOK, "").Data()
		secret := put["secret"].(string)

		const n = 5
		for i := 0; i < n; i++ {
			msgSend(t, s, "/api/v1/messages", buyer.Auth(), listing, "Question number "+strconv.Itoa(i))
		}
		// Every event is attempted and refused at least once.
		deadline := time.Now().Add(10 * time.Second)
		for distinctIDs(rc.all()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d of %d events attempted", distinctIDs(rc.all()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		down = false
		mu.Unlock()
		waitDelivered(t, s, "/api/v1/auth/me/webhook/deliveries", seller.Auth(), n)

		ok := map[string]bool{}
		for _, c := range rc.all() {
			verifySignature(t, secret, c)
			if c.JSON["type"] == "message.received" {
				ok[c.ID] = true
			}
		}
		if len(ok) != n {
			t.Fatalf("%d distinct events received, want %d", len(ok), n)
		}
		log := s.Do("GET", "/api/v1/auth/me/webhook/deliveries", nil, seller.Auth()).Want(t, http.StatusOK, "").List()
		for _, x := range log {
			d := x.(map[string]any)
			attempts := d["attemptLog"].([]any)
			if testkit.Num(t, d, "attempts") < 2 || int64(len(attempts)) != testkit.Num(t, d, "attempts") ||
				attempts[0].(map[string]any)["statusCode"] != float64(500) || d["deliveredAt"] == nil || d["nextAttemptAt"] != nil {
				t.Fatalf("delivery after recovery = %v", d)
			}
		}

		// 410: disabled at once, no retry.
		rc.setStatus(func(int) int { return http.StatusGone })
		before := len(rc.all())
		msgSend(t, s, "/api/v1/messages", buyer.Auth(), listing, "Still there?")
		rc.waitFor(t, "the attempt answered 410", 10*time.Second, func(hookCall) bool { return len(rc.all()) > before })
		deadline = time.Now().Add(10 * time.Second)
		var hook map[string]any
		for {
			hook = s.Do("GET", "/api/v1/auth/me/webhook", nil, seller.Auth()).Want(t, http.StatusOK, "").Data()
			if hook["enabled"] == false || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if hook["enabled"] != false || hook["disabledReason"] == nil {
			t.Fatalf("after a 410 the webhook = %v", hook)
		}
		gone := s.Do("GET", "/api/v1/auth/me/webhook/deliveries", nil, seller.Auth()).Want(t, http.StatusOK, "").List()[0].(map[string]any)
		if gone["status"] != "failed" || gone["lastStatusCode"] != float64(410) || testkit.Num(t, gone, "attempts") != 1 {
			t.Fatalf("the 410 delivery = %v", gone)
		}
		// Replay: one more attempt now, same webhook-id, recorded.
		rc.setStatus(func(int) int { return http.StatusOK })
		d := s.Do("POST", "/api/v1/auth/me/webhook/deliveries/"+gone["id"].(string)+"/retry", nil, seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		if d["status"] != "delivered" || testkit.Num(t, d, "attempts") != 2 {
			t.Fatalf("replayed = %v", d)
		}
		calls := rc.all()
		last := calls[len(calls)-1]
		if last.ID != gone["eventId"] {
			t.Fatalf("replay webhook-id %s, want %s", last.ID, gone["eventId"])
		}
		verifySignature(t, secret, last)
		// A delivered one can be replayed too.
		d = s.Do("POST", "/api/v1/auth/me/webhook/deliveries/"+gone["id"].(string)+"/retry", nil, seller.Auth()).
			Want(t, http.StatusOK, "").Data()
		if d["status"] != "delivered" || testkit.Num(t, d, "attempts") != 3 {
			t.Fatalf("replayed again = %v", d)
		}
		// A PUT enables the endpoint again.
		hook = s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": rc.URL}, seller.Auth()).Want(t, http.StatusOK, "").Data()
		if hook["enabled"] != true || hook["disabledReason"] != nil {
			t.Fatalf("PUT after 410 = %v", hook)
		}
	})
}

func distinctIDs(cs []hookCall) int {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.ID] = true
	}
	return len(m)
}

// TestWebhookAuthz: who may use each route. The account endpoint is the
// bearer's; agent endpoints are the owner's (any key, or the bearer);
// anyone else's is 404; no credentials 401.
func TestWebhookAuthz(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner, other := s.VerifiedOwner("hookowner"), s.VerifiedOwner("hookother")
		key, otherKey := s.NewKey(owner, "buy"), s.NewKey(other, "sell")
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": "http://127.0.0.1:9/hook"}, owner.Auth()).Want(t, http.StatusOK, "")
		ep := s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": "http://127.0.0.1:9/a", "events": []string{"*"}}, key.Auth()).
			Want(t, http.StatusCreated, "").Data()["id"].(string)
		// The owner's bearer and another of the owner's keys see it.
		key2 := s.NewKey(owner, "sell")
		for _, h := range []testkit.Header{owner.Auth(), key2.Auth()} {
			if ws := s.Do("GET", "/v1/agent/webhooks", nil, h).Want(t, http.StatusOK, "").Data()["webhooks"].([]any); len(ws) != 1 {
				t.Fatalf("owner sees %v", ws)
			}
		}
		if ws := s.Do("GET", "/v1/agent/webhooks", nil, otherKey.Auth()).Want(t, http.StatusOK, "").Data()["webhooks"].([]any); len(ws) != 0 {
			t.Fatalf("other owner sees %v", ws)
		}
		a := []struct{ method, path string }{
			{"PUT", "/api/v1/auth/me/webhook"}, {"GET", "/api/v1/auth/me/webhook"}, {"DELETE", "/api/v1/auth/me/webhook"},
			{"POST", "/api/v1/auth/me/webhook/test"}, {"GET", "/api/v1/auth/me/webhook/deliveries"},
			{"POST", "/api/v1/auth/me/webhook/deliveries/x/retry"},
		}
		for _, r := range a {
			var body any
			if r.method == "PUT" {
				body = map[string]any{"url": "http://127.0.0.1:9/hook"}
			}
			s.Do(r.method, r.path, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(r.method, r.path, body, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		}
		// Another user has no account endpoint: 404 everywhere but PUT.
		for _, r := range a[1:] {
			s.Do(r.method, r.path, nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		b := []struct{ method, path string }{
			{"POST", "/v1/agent/webhooks"}, {"GET", "/v1/agent/webhooks"}, {"DELETE", "/v1/agent/webhooks/" + ep},
			{"GET", "/v1/agent/webhooks/" + ep + "/deliveries"}, {"POST", "/v1/agent/webhooks/" + ep + "/deliveries/x/retry"},
		}
		for _, r := range b {
			var body any
			if r.method == "POST" && !strings.Contains(r.path, "retry") {
				body = map[string]any{"url": "http://127.0.0.1:9/a", "events": []string{"*"}}
			}
			s.Do(r.method, r.path, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		}
		for _, r := range b[2:] {
			s.Do(r.method, r.path, nil, otherKey.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do(r.method, r.path, nil, other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		// A refusal's shape (the rules: webhooks.TestEventFilters and
		// neighbours).
		testkit.WantFields(t, s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": "http://127.0.0.1:9/a",
			"events": []string{"order.created", "order.exploded"}}, key.Auth()), "events")
		testkit.WantFields(t, s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": "http://u:p@example.com/"}, owner.Auth()), "url")
		// Delete.
		s.Do("DELETE", "/v1/agent/webhooks/"+ep, nil, key2.Auth()).Want(t, http.StatusOK, "")
		s.Do("DELETE", "/v1/agent/webhooks/"+ep, nil, key2.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("DELETE", "/api/v1/auth/me/webhook", nil, owner.Auth()).Want(t, http.StatusOK, "")
		s.Do("GET", "/api/v1/auth/me/webhook", nil, owner.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}

// TestWebhookLiveURLs: live mode reaches the URL policy (http refused,
// private addresses refused); the policy's cases are webhooks' own tests.
func TestWebhookLiveURLs(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{Mode: config.Live}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("liveowner")
		for _, url := range []string{"http://93.184.216.34/hook", "https://127.0.0.1/hook"} {
			testkit.WantFields(t, s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": url}, u.Auth()), "url")
		}
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": "https://93.184.216.34/hook"}, u.Auth()).Want(t, http.StatusOK, "")
	})
}

// TestWebhookRules: nothing is sent for a rolled-back change; an agent
// endpoint's filter holds events back through the job; the job fails a
// delivery at its last attempt. (The preference switch and a deleted
// endpoint's retries: webhooks.TestSink and TestOwnerIsolation.)
func TestWebhookRules(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{WithJobs: true}, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		s.App.Webhooks.SetRetryDelays([]time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond})
		u := s.VerifiedOwner("ruleowner")
		acct, filtered := newReceiver(t), newReceiver(t)
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": acct.URL}, u.Auth()).Want(t, http.StatusOK, "")
		key := s.NewKey(u, "sell")
		s.Do("POST", "/v1/agent/webhooks", map[string]any{"url": filtered.URL, "events": []string{"order.created"}}, key.Auth()).
			Want(t, http.StatusCreated, "")
		record := func(typ string, fail bool) string {
			e := &events.Event{ID: market.NewID(), Type: typ, ActorType: market.ActorSystem, EntityType: "thread", EntityID: "t1",
				CreatedAt: s.Clock.Now(), Recipients: []string{u.ID}, Data: map[string]any{"threadId": "t1"}}
			err := s.App.DB.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
				if fail {
					return errors.New("roll back")
				}
				return nil
			})
			if (err != nil) != fail {
				t.Fatalf("record %s: %v", typ, err)
			}
			return e.ID
		}

		// Rolled back: no delivery, no request.
		record("message.received", true)
		sent := record("message.received", false)
		c := acct.waitFor(t, "the message event", 10*time.Second, ofType("message.received"))
		if c.ID != sent {
			t.Fatalf("received %s, want %s (a rolled-back event went out)", c.ID, sent)
		}
		time.Sleep(300 * time.Millisecond)
		if n := len(acct.all()); n != 1 {
			t.Fatalf("%d requests, want 1", n)
		}
		if n := len(filtered.all()); n != 0 {
			t.Fatalf("the order.created endpoint got %d requests", n)
		}
		order := record("order.created", false)
		filtered.waitFor(t, "order.created", 10*time.Second, func(c hookCall) bool { return c.ID == order })
		if ds := s.Do("GET", "/api/v1/auth/me/webhook/deliveries", nil, u.Auth()).Want(t, http.StatusOK, "").List(); len(ds) != 2 {
			t.Fatalf("%d deliveries in the log, want 2 (message, order)", len(ds))
		}

		// The job's last attempt fails the delivery: here the schedule has
		// one retry, so two attempts. A fresh endpoint starts the log
		// empty.
		s.Do("DELETE", "/api/v1/auth/me/webhook", nil, u.Auth()).Want(t, http.StatusOK, "")
		s.App.Webhooks.SetRetryDelays([]time.Duration{100 * time.Millisecond})
		acct.setStatus(func(int) int { return http.StatusInternalServerError })
		s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": acct.URL}, u.Auth()).Want(t, http.StatusOK, "")
		record("message.received", false)
		deadline := time.Now().Add(20 * time.Second)
		for {
			ds := s.Do("GET", "/api/v1/auth/me/webhook/deliveries", nil, u.Auth()).Want(t, http.StatusOK, "").List()
			if len(ds) == 1 && ds[0].(map[string]any)["status"] == "failed" {
				d := ds[0].(map[string]any)
				if testkit.Num(t, d, "attempts") != 2 || d["nextAttemptAt"] != nil || d["lastStatusCode"] != float64(500) ||
					d["lastError"] != "HTTP 500" || len(d["attemptLog"].([]any)) != 2 {
					t.Fatalf("failed delivery = %v", d)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the delivery did not fail after its last attempt: %v", ds)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
