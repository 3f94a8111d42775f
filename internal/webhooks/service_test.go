package webhooks_test

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/webhooks"
)

var t0 = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// scheduler records what would be enqueued.
type scheduler struct {
	mu   sync.Mutex
	jobs map[string]int // delivery id -> max attempts
}

func (s *scheduler) ScheduleDelivery(_ context.Context, _ webhooks.Tx, id string, maxAttempts int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs == nil {
		s.jobs = map[string]int{}
	}
	s.jobs[id] = maxAttempts
	return nil
}

type resolver map[string]string

func (r resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if ip, ok := r[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var names = resolver{"hooks.example.com": "93.184.216.34", "internal.example.com": "192.168.1.10"}

type fixture struct {
	t     *testing.T
	db    *store.DB
	sched *scheduler
	svc   *webhooks.Service
}

func newFixture(t *testing.T, db *store.DB, opts webhooks.Options) *fixture {
	sched := &scheduler{}
	opts.Scheduler, opts.Resolver = sched, names
	return &fixture{t: t, db: db, sched: sched, svc: webhooks.NewService(store.Webhooks(db), market.NewFixedClock(t0), opts)}
}

// sandbox is the service as the sandbox runs it: http allowed, private
// addresses allowed (the test receivers are on loopback).
func sandbox(t *testing.T) *fixture {
	return newFixture(t, storetest.OpenSQLite(t), webhooks.Options{AllowPrivate: true})
}

func (f *fixture) user() market.Actor {
	f.t.Helper()
	id := market.NewID()
	u := &accounts.User{ID: id, Email: id + "@example.com", Username: "u" + id[24:], DisplayName: "U",
		Role: accounts.RoleUser, Status: accounts.StatusActive, TrustTier: accounts.TierNew, CreatedAt: t0, UpdatedAt: t0}
	if err := f.db.InTx(context.Background(), func(tx *store.Tx) error { return tx.CreateUser(context.Background(), u) }); err != nil {
		f.t.Fatal(err)
	}
	return market.Actor{Type: market.ActorUser, UserID: id}
}

func (f *fixture) endpoint(id string) *webhooks.Endpoint {
	f.t.Helper()
	ep, err := f.db.Read().WebhookEndpoint(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return ep
}

func (f *fixture) delivery(id string) *webhooks.Delivery {
	f.t.Helper()
	d, err := f.db.Read().WebhookDelivery(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// receiver is an endpoint whose answer the test sets.
type receiver struct {
	*httptest.Server
	status atomic.Int32
	hits   atomic.Int32
}

func newReceiver(t *testing.T, status int) *receiver {
	r := &receiver{}
	r.status.Store(int32(status))
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.hits.Add(1)
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	return r
}

func fieldsOf(err error) []string {
	if err == nil {
		return nil
	}
	e := market.ErrorOf(err)
	if e.Code != market.CodeValidation {
		return []string{"code " + string(e.Code)}
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	slices.Sort(out)
	return out
}

func wantCode(t *testing.T, what string, err error, code market.Code) {
	t.Helper()
	if market.CodeOf(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// TestEndpointURLRules: https only in live mode; loopback, private and
// names that resolve to them refused unless private addresses are allowed,
// on both kinds of endpoint.
func TestEndpointURLRules(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts webhooks.Options
		url  string
		ok   bool
	}{
		{"live https", webhooks.Options{Live: true}, "https://hooks.example.com/x", true},
		{"live http", webhooks.Options{Live: true}, "http://hooks.example.com/x", false},
		{"live loopback", webhooks.Options{Live: true}, "https://127.0.0.1/x", false},
		{"live private name", webhooks.Options{Live: true}, "https://internal.example.com/x", false},
		{"live unresolvable", webhooks.Options{Live: true}, "https://nowhere.example.com/x", false},
		{"sandbox http", webhooks.Options{}, "http://hooks.example.com/x", true},
		{"sandbox private, not allowed", webhooks.Options{}, "http://10.0.0.1/x", false},
		{"sandbox localhost, not allowed", webhooks.Options{}, "http://localhost:8080/x", false},
		{"sandbox private, allowed", webhooks.Options{AllowPrivate: true}, "http://10.0.0.1/x", true},
		{"sandbox loopback, allowed", webhooks.Options{AllowPrivate: true}, "http://127.0.0.1:9/x", true},
		{"live private, allowed", webhooks.Options{Live: true, AllowPrivate: true}, "https://127.0.0.1/x", true},
		{"live http, private allowed", webhooks.Options{Live: true, AllowPrivate: true}, "http://127.0.0.1/x", false},
		{"not http", webhooks.Options{AllowPrivate: true}, "ftp://hooks.example.com/x", false},
		{"blank", webhooks.Options{AllowPrivate: true}, "  ", false},
		{"user info", webhooks.Options{AllowPrivate: true}, "https://u:p@hooks.example.com/x", false},
		{"fragment", webhooks.Options{AllowPrivate: true}, "https://hooks.example.com/x#y", false},
		{"too long", webhooks.Options{AllowPrivate: true}, "https://hooks.example.com/" + strings.Repeat("x", 2048), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, db, tc.opts)
			owner := f.user()
			var want []string
			if !tc.ok {
				want = []string{"url"}
			}
			ep, err := f.svc.PutAccount(ctx, owner, tc.url, nil)
			if got := fieldsOf(err); !slices.Equal(got, want) {
				t.Errorf("account endpoint: fields %v, want %v", got, want)
			}
			if err == nil && ep.URL != strings.TrimSpace(tc.url) {
				t.Errorf("url stored as %q", ep.URL)
			}
			_, err = f.svc.CreateAgent(ctx, owner, tc.url, []string{"*"})
			if got := fieldsOf(err); !slices.Equal(got, want) {
				t.Errorf("agent endpoint: fields %v, want %v", got, want)
			}
			if eps, _ := f.svc.ListAgent(ctx, owner); tc.ok != (len(eps) == 1) {
				t.Errorf("%d agent endpoints stored", len(eps))
			}
		})
	}
}

// TestEventFilters: '*' or public types, trimmed and without repeats; an
// account endpoint's filter is optional, an agent endpoint's required.
func TestEventFilters(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	owner := f.user()
	const url = "http://127.0.0.1:9/hook"
	for _, tc := range []struct {
		name  string
		in    []string
		want  []string
		field bool
	}{
		{"left out", nil, []string{"*"}, false},
		{"empty", []string{}, []string{"*"}, false},
		{"star", []string{"*"}, []string{"*"}, false},
		{"types, trimmed, repeats dropped", []string{"order.created", " order.created ", "offer.received"}, []string{"order.created", "offer.received"}, false},
		{"star among types", []string{"order.created", "*"}, []string{"*"}, false},
		{"unknown type", []string{"order.created", "order.teleported"}, nil, true},
		{"internal type", []string{"user.registered"}, nil, true},
		{"the test event", []string{events.TypeTest}, nil, true},
	} {
		ep, err := f.svc.PutAccount(ctx, owner, url, tc.in)
		if tc.field {
			if got := fieldsOf(err); !slices.Equal(got, []string{"events"}) {
				t.Errorf("%s: account fields %v", tc.name, got)
			}
		} else if err != nil || !slices.Equal(ep.Events, tc.want) {
			t.Errorf("%s: account filter %v %v, want %v", tc.name, ep, err, tc.want)
		}
		in := tc.in
		if in == nil {
			in = []string{} // nil is refused for agents, below
		}
		ag, err := f.svc.CreateAgent(ctx, owner, url, in)
		if tc.field {
			if got := fieldsOf(err); !slices.Equal(got, []string{"events"}) {
				t.Errorf("%s: agent fields %v", tc.name, got)
			}
		} else if err != nil || !slices.Equal(ag.Events, tc.want) {
			t.Errorf("%s: agent filter %v %v, want %v", tc.name, ag, err, tc.want)
		} else if _, err := f.svc.DeleteAgent(ctx, owner, ag.ID); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.CreateAgent(ctx, owner, url, nil)
	if got := fieldsOf(err); !slices.Equal(got, []string{"events"}) {
		t.Errorf("agent without a filter: fields %v", got)
	}
	_, err = f.svc.CreateAgent(ctx, owner, "ftp://x", []string{"nope"})
	if got := fieldsOf(err); !slices.Equal(got, []string{"events", "url"}) {
		t.Errorf("agent with two bad fields: %v", got)
	}
	if subs := webhooks.Subscribable(); slices.Contains(subs, events.TypeTest) || !slices.Contains(subs, "order.created") {
		t.Errorf("subscribable: %v", subs)
	}

	// Matching: '*' is every type but the test event, which is only
	// sent on request.
	all := webhooks.Endpoint{Events: []string{"*"}}
	some := webhooks.Endpoint{Events: []string{"order.created"}}
	if !all.Matches("offer.received") || all.Matches(events.TypeTest) || !some.Matches("order.created") || some.Matches("order.shipped") {
		t.Error("Matches")
	}
}

// TestEndpointSecrets: a secret is whsec_ and the base64 of 32 random
// bytes; setting the account endpoint again rotates it and enables the
// endpoint again; agent endpoints speak snake_case.
func TestEndpointSecrets(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	owner := f.user()
	wantSecret := func(s string) {
		t.Helper()
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if !strings.HasPrefix(s, "whsec_") || err != nil || len(key) != 32 {
			t.Errorf("secret %q", s)
		}
	}
	first, err := f.svc.PutAccount(ctx, owner, "http://127.0.0.1:9/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSecret(first.Secret)
	if first.Kind != webhooks.KindAccount || first.Snake || !first.Enabled || first.UserID != owner.UserID {
		t.Errorf("account endpoint %+v", first)
	}
	// Disabled (as by a 410), then set again.
	ep := f.endpoint(first.ID)
	ep.Enabled, ep.DisabledReason = false, "gone"
	if err := f.db.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateWebhookEndpoint(ctx, ep) }); err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.PutAccount(ctx, owner, "http://127.0.0.1:9/b", []string{"order.created"})
	if err != nil {
		t.Fatal(err)
	}
	wantSecret(again.Secret)
	got := f.endpoint(first.ID)
	if again.ID != first.ID || got.Secret == first.Secret || !got.Enabled || got.DisabledReason != "" || got.URL != "http://127.0.0.1:9/b" {
		t.Errorf("set again: %+v", got)
	}
	ag, err := f.svc.CreateAgent(ctx, owner, "http://127.0.0.1:9/c", []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	wantSecret(ag.Secret)
	if ag.Kind != webhooks.KindAgent || !ag.Snake || ag.Secret == got.Secret {
		t.Errorf("agent endpoint %+v", ag)
	}
}

// TestAgentEndpointLimit: MaxAgentEndpoints per owner; the account
// endpoint and other owners do not count; deleting one frees a slot.
func TestAgentEndpointLimit(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	owner, other := f.user(), f.user()
	if _, err := f.svc.PutAccount(ctx, owner, "http://127.0.0.1:9/a", nil); err != nil {
		t.Fatal(err)
	}
	var first *webhooks.Endpoint
	for i := range webhooks.MaxAgentEndpoints {
		ep, err := f.svc.CreateAgent(ctx, owner, "http://127.0.0.1:9/x", []string{"*"})
		if err != nil {
			t.Fatalf("endpoint %d: %v", i+1, err)
		}
		if first == nil {
			first = ep
		}
	}
	_, err := f.svc.CreateAgent(ctx, owner, "http://127.0.0.1:9/x", []string{"*"})
	if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Details["limit"] != webhooks.MaxAgentEndpoints {
		t.Fatalf("endpoint %d: %+v", webhooks.MaxAgentEndpoints+1, e)
	}
	if eps, _ := f.svc.ListAgent(ctx, owner); len(eps) != webhooks.MaxAgentEndpoints || eps[0].ID != first.ID {
		t.Errorf("%d agent endpoints listed, oldest first %v", len(eps), eps[0].ID == first.ID)
	}
	if _, err := f.svc.CreateAgent(ctx, other, "http://127.0.0.1:9/x", []string{"*"}); err != nil {
		t.Errorf("another owner: %v", err)
	}
	if _, err := f.svc.DeleteAgent(ctx, owner, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateAgent(ctx, owner, "http://127.0.0.1:9/x", []string{"*"}); err != nil {
		t.Errorf("after a delete: %v", err)
	}
}

// TestOwnerIsolation: another owner's endpoints and deliveries, and an
// endpoint of the other kind, are not found.
func TestOwnerIsolation(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	rcv := newReceiver(t, 200)
	ann, bob := f.user(), f.user()
	acct, err := f.svc.PutAccount(ctx, ann, rcv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := f.svc.CreateAgent(ctx, ann, rcv.URL, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.svc.Test(ctx, ann)
	if err != nil {
		t.Fatal(err)
	}
	if d.EndpointID != acct.ID || d.EventType != events.TypeTest || d.Status != webhooks.StatusPending || f.sched.jobs[d.ID] != 8 {
		t.Errorf("test delivery %+v, job attempts %d", d, f.sched.jobs[d.ID])
	}

	// Bob has no account endpoint.
	_, err = f.svc.Account(ctx, bob)
	wantCode(t, "bob's account endpoint", err, market.CodeNotFound)
	_, err = f.svc.Test(ctx, bob)
	wantCode(t, "bob's test", err, market.CodeNotFound)
	_, err = f.svc.DeleteAccount(ctx, bob)
	wantCode(t, "bob's delete", err, market.CodeNotFound)
	_, err = f.svc.AccountDeliveries(ctx, bob, 0)
	wantCode(t, "bob's deliveries", err, market.CodeNotFound)
	_, err = f.svc.RetryAccount(ctx, bob, d.ID)
	wantCode(t, "bob's retry", err, market.CodeNotFound)
	if eps, _ := f.svc.ListAgent(ctx, bob); len(eps) != 0 {
		t.Errorf("bob lists %d endpoints", len(eps))
	}
	// Ann's endpoints through bob, and ann's account endpoint (or an
	// unknown id) through the agent routes.
	for name, c := range map[string]struct {
		who market.Actor
		id  string
	}{
		"bob, ann's agent endpoint": {bob, agent.ID},
		"ann, her account endpoint": {ann, acct.ID},
		"ann, an unknown id":        {ann, market.NewID()},
	} {
		_, err := f.svc.AgentDeliveries(ctx, c.who, c.id, 0)
		wantCode(t, name+": deliveries", err, market.CodeNotFound)
		_, err = f.svc.RetryAgent(ctx, c.who, c.id, d.ID)
		wantCode(t, name+": retry", err, market.CodeNotFound)
		_, err = f.svc.DeleteAgent(ctx, c.who, c.id)
		wantCode(t, name+": delete", err, market.CodeNotFound)
	}
	// A delivery of another endpoint, or none, is not found under this one.
	_, err = f.svc.RetryAgent(ctx, ann, agent.ID, d.ID)
	wantCode(t, "the account endpoint's delivery through the agent endpoint", err, market.CodeNotFound)
	_, err = f.svc.RetryAccount(ctx, ann, market.NewID())
	wantCode(t, "an unknown delivery", err, market.CodeNotFound)
	if rcv.hits.Load() != 0 {
		t.Errorf("refused calls sent %d requests", rcv.hits.Load())
	}
	// All of ann's is still there.
	if _, err := f.svc.Account(ctx, ann); err != nil {
		t.Error(err)
	}
	if eps, _ := f.svc.ListAgent(ctx, ann); len(eps) != 1 {
		t.Errorf("ann has %d agent endpoints", len(eps))
	}
	// Deleting the account endpoint takes its deliveries with it.
	if _, err := f.svc.DeleteAccount(ctx, ann); err != nil {
		t.Fatal(err)
	}
	if retry, err := f.svc.Deliver(ctx, d.ID, 1, 8); retry || err != nil || rcv.hits.Load() != 0 {
		t.Errorf("delivery of a deleted endpoint: retry %v, %v, %d hits", retry, err, rcv.hits.Load())
	}
}

// TestDeliveryLimit: a delivery log page is 50 by default, 100 at most,
// newest first.
func TestDeliveryLimit(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	owner := f.user()
	ep, err := f.svc.PutAccount(ctx, owner, "http://127.0.0.1:9/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.svc.Test(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	// 119 more deliveries of the same event, a second apart.
	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		for i := 1; i < 120; i++ {
			at := d.CreatedAt.Add(time.Duration(i) * time.Second)
			if err := tx.InsertWebhookDelivery(ctx, &webhooks.Delivery{ID: market.NewID(), EndpointID: ep.ID, EventID: d.EventID,
				EventType: d.EventType, Status: webhooks.StatusPending, NextAttemptAt: &at, CreatedAt: at, History: []webhooks.Attempt{}}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ limit, want int }{{0, 50}, {-5, 50}, {1, 1}, {7, 7}, {100, 100}, {101, 100}, {1000, 100}} {
		list, err := f.svc.AccountDeliveries(ctx, owner, tc.limit)
		if err != nil || len(list) != tc.want {
			t.Errorf("limit %d: %d deliveries, %v; want %d", tc.limit, len(list), err, tc.want)
			continue
		}
		if !slices.IsSortedFunc(list, func(a, b webhooks.Delivery) int { return b.CreatedAt.Compare(a.CreatedAt) }) {
			t.Errorf("limit %d: not newest first", tc.limit)
		}
	}
	ag, _ := f.svc.CreateAgent(ctx, owner, "http://127.0.0.1:9/b", []string{"*"})
	if list, err := f.svc.AgentDeliveries(ctx, owner, ag.ID, 0); err != nil || len(list) != 0 {
		t.Errorf("a new agent endpoint's log: %d %v", len(list), err)
	}
}

// TestRetrySchedule: a failing delivery is retried on the schedule (each
// next attempt at the attempt's time plus its delay and up to 10% jitter)
// and fails at the last attempt; a success ends it; a finished delivery is
// never sent again by the job.
func TestRetrySchedule(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusInternalServerError)
	owner := f.user()
	if _, err := f.svc.PutAccount(ctx, owner, rcv.URL, nil); err != nil {
		t.Fatal(err)
	}
	d, err := f.svc.Test(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	max := f.sched.jobs[d.ID]
	if max != len(webhooks.DefaultRetryDelays)+1 || max != f.svc.MaxAttempts() {
		t.Fatalf("job of %d attempts, want %d", max, len(webhooks.DefaultRetryDelays)+1)
	}
	for attempt := 1; attempt <= max; attempt++ {
		before := time.Now()
		retry, err := f.svc.Deliver(ctx, d.ID, attempt, max)
		after := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		got := f.delivery(d.ID)
		if got.Attempts != attempt || len(got.History) != attempt || got.LastStatusCode == nil || *got.LastStatusCode != 500 ||
			got.LastError != "HTTP 500" || got.History[attempt-1].Replay {
			t.Fatalf("attempt %d: %+v", attempt, got)
		}
		if attempt < max {
			base := webhooks.DefaultRetryDelays[attempt-1]
			if !retry || got.Status != webhooks.StatusPending || got.NextAttemptAt == nil ||
				got.NextAttemptAt.Before(before.Add(base-time.Millisecond)) || got.NextAttemptAt.After(after.Add(base+base/10+time.Millisecond)) {
				t.Fatalf("attempt %d: retry %v, %s, next %v (base %v)", attempt, retry, got.Status, got.NextAttemptAt, base)
			}
			if d := f.svc.RetryDelay(d.ID, attempt); d < base || d > base+base/10 {
				t.Fatalf("attempt %d: delay %v, base %v", attempt, d, base)
			}
		} else if retry || got.Status != webhooks.StatusFailed || got.NextAttemptAt != nil {
			t.Fatalf("last attempt: retry %v, %+v", retry, got)
		}
	}
	hits := rcv.hits.Load()
	if hits != int32(max) {
		t.Errorf("%d requests, want %d", hits, max)
	}
	if retry, err := f.svc.Deliver(ctx, d.ID, max, max); retry || err != nil || rcv.hits.Load() != hits {
		t.Errorf("a failed delivery was sent again: %v %v", retry, err)
	}

	// Success ends it at once.
	rcv.status.Store(204)
	d2, _ := f.svc.Test(ctx, owner)
	retry, err := f.svc.Deliver(ctx, d2.ID, 1, max)
	got := f.delivery(d2.ID)
	if retry || err != nil || got.Status != webhooks.StatusDelivered || got.DeliveredAt == nil || got.NextAttemptAt != nil ||
		got.LastError != "" || *got.LastStatusCode != 204 {
		t.Fatalf("success: retry %v %v, %+v", retry, err, got)
	}
	if retry, _ := f.svc.Deliver(ctx, d2.ID, 2, max); retry || rcv.hits.Load() != hits+1 {
		t.Error("a delivered delivery was sent again")
	}

	// A shorter schedule applies to deliveries made after it is set.
	f.svc.SetRetryDelays([]time.Duration{time.Second, 2 * time.Second})
	d3, _ := f.svc.Test(ctx, owner)
	if f.sched.jobs[d3.ID] != 3 || f.svc.MaxAttempts() != 3 {
		t.Errorf("short schedule: job of %d attempts", f.sched.jobs[d3.ID])
	}
	if got := f.svc.RetryDelay(d3.ID, 9); got < 2*time.Second || got > 2200*time.Millisecond {
		t.Errorf("past the schedule: %v, want the last delay", got)
	}
	f.svc.SetRetryDelays(nil)
	if f.svc.MaxAttempts() != 8 {
		t.Error("nil does not restore the default schedule")
	}
}

// TestGone: a 410 fails the delivery at once and disables the endpoint;
// its other pending deliveries fail without a request, and new events
// make none until the endpoint is set again.
func TestGone(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	rcv := newReceiver(t, http.StatusGone)
	owner := f.user()
	ep, err := f.svc.PutAccount(ctx, owner, rcv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := f.svc.Test(ctx, owner)
	d2, _ := f.svc.Test(ctx, owner)
	retry, err := f.svc.Deliver(ctx, d1.ID, 1, 8)
	if got := f.delivery(d1.ID); retry || err != nil || got.Status != webhooks.StatusFailed || got.NextAttemptAt != nil || *got.LastStatusCode != 410 {
		t.Fatalf("410: retry %v %v, %+v", retry, err, got)
	}
	if got := f.endpoint(ep.ID); got.Enabled || got.DisabledReason == "" {
		t.Fatalf("endpoint after 410: %+v", got)
	}
	retry, err = f.svc.Deliver(ctx, d2.ID, 1, 8)
	if got := f.delivery(d2.ID); retry || err != nil || got.Status != webhooks.StatusFailed || got.Attempts != 0 ||
		got.LastError != "the endpoint is disabled" || rcv.hits.Load() != 1 {
		t.Fatalf("pending delivery of a disabled endpoint: retry %v %v, %+v, %d hits", retry, err, got, rcv.hits.Load())
	}
	sink(t, f, "order.created", owner.UserID)
	if list, _ := f.svc.AccountDeliveries(ctx, owner, 0); len(list) != 2 {
		t.Errorf("a disabled endpoint got a delivery: %d", len(list))
	}
	if _, err := f.svc.PutAccount(ctx, owner, rcv.URL, nil); err != nil {
		t.Fatal(err)
	}
	sink(t, f, "order.created", owner.UserID)
	if list, _ := f.svc.AccountDeliveries(ctx, owner, 0); len(list) != 3 {
		t.Errorf("set again, the endpoint got %d deliveries, want 3", len(list))
	}
}

// TestReplay: a replay is one attempt now, marked as such: it can make a
// failed delivery delivered, never a delivered one failed nor a finished
// one pending, and leaves a pending one's schedule alone.
func TestReplay(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	rcv := newReceiver(t, 500)
	owner := f.user()
	ep, err := f.svc.PutAccount(ctx, owner, rcv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	replay := func(id string) *webhooks.Delivery {
		t.Helper()
		d, err := f.svc.RetryAccount(ctx, owner, id)
		if err != nil {
			t.Fatal(err)
		}
		if last := d.History[len(d.History)-1]; !last.Replay {
			t.Errorf("the replay is not marked: %+v", last)
		}
		return d
	}

	// Pending, failing again: still pending, same schedule.
	pending, _ := f.svc.Test(ctx, owner)
	if _, err := f.svc.Deliver(ctx, pending.ID, 1, 8); err != nil {
		t.Fatal(err)
	}
	next := *f.delivery(pending.ID).NextAttemptAt
	if d := replay(pending.ID); d.Status != webhooks.StatusPending || d.Attempts != 2 || !d.NextAttemptAt.Equal(next) {
		t.Errorf("replayed pending: %+v", d)
	}

	// Failed, then answered: delivered.
	failed, _ := f.svc.Test(ctx, owner)
	if _, err := f.svc.Deliver(ctx, failed.ID, 8, 8); err != nil {
		t.Fatal(err)
	}
	if d := replay(failed.ID); d.Status != webhooks.StatusFailed || d.NextAttemptAt != nil {
		t.Errorf("replayed failed, failing: %+v", d)
	}
	rcv.status.Store(200)
	if d := replay(failed.ID); d.Status != webhooks.StatusDelivered || d.DeliveredAt == nil || d.Attempts != 3 {
		t.Errorf("replayed failed, answered: %+v", d)
	}

	// Delivered, then failing or gone: still delivered (a 410 disables
	// the endpoint all the same).
	rcv.status.Store(500)
	if d := replay(failed.ID); d.Status != webhooks.StatusDelivered || *d.LastStatusCode != 500 || d.NextAttemptAt != nil {
		t.Errorf("replayed delivered, failing: %+v", d)
	}
	rcv.status.Store(410)
	if d := replay(failed.ID); d.Status != webhooks.StatusDelivered || *d.LastStatusCode != 410 {
		t.Errorf("replayed delivered, gone: %+v", d)
	}
	if f.endpoint(ep.ID).Enabled {
		t.Error("a 410 on a replay left the endpoint enabled")
	}

	// Agent endpoints replay the same way.
	rcv.status.Store(200)
	ag, _ := f.svc.CreateAgent(ctx, owner, rcv.URL, []string{"order.created"})
	sink(t, f, "order.created", owner.UserID)
	list, err := f.svc.AgentDeliveries(ctx, owner, ag.ID, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("agent deliveries: %d %v", len(list), err)
	}
	if d, err := f.svc.RetryAgent(ctx, owner, ag.ID, list[0].ID); err != nil || d.Status != webhooks.StatusDelivered || !d.History[0].Replay {
		t.Errorf("agent replay: %+v %v", d, err)
	}
}

// TestLiveSendsHTTPSOnly: an http endpoint (set before live mode) gets no
// request in live mode; the attempt records why.
func TestLiveSendsHTTPSOnly(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	rcv := newReceiver(t, 200)
	sb := newFixture(t, db, webhooks.Options{AllowPrivate: true})
	owner := sb.user()
	if _, err := sb.svc.PutAccount(ctx, owner, rcv.URL, nil); err != nil {
		t.Fatal(err)
	}
	live := newFixture(t, db, webhooks.Options{Live: true, AllowPrivate: true})
	d, err := live.svc.Test(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	retry, err := live.svc.Deliver(ctx, d.ID, 1, 8)
	if got := live.delivery(d.ID); !retry || err != nil || got.LastError != "live mode sends to https URLs only" || rcv.hits.Load() != 0 {
		t.Errorf("live send to http: retry %v %v, %+v, %d hits", retry, err, got, rcv.hits.Load())
	}
}

// sink records a public event of typ for recipients and runs the webhook
// sink in its transaction, as the store does for the app.
func sink(t *testing.T, f *fixture, typ string, recipients ...string) {
	t.Helper()
	ctx := context.Background()
	e := &events.Event{ID: market.NewID(), Type: typ, ActorType: market.ActorSystem, EntityType: "order", EntityID: market.NewID(),
		Data: map[string]any{}, CreatedAt: t0, Recipients: recipients}
	if err := f.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.AppendEvent(ctx, e); err != nil {
			return err
		}
		return f.svc.Sink(ctx, tx, e)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSink: each recipient's enabled endpoints whose filter matches get a
// delivery, unless the recipient turned webhooks off for the event's
// category; e-mail preferences do not matter here.
func TestSink(t *testing.T) {
	f := sandbox(t)
	ctx := context.Background()
	ann, bob, cid := f.user(), f.user(), f.user()
	const url = "http://127.0.0.1:9/x"
	annAcct, _ := f.svc.PutAccount(ctx, ann, url, nil)
	annOrders, _ := f.svc.CreateAgent(ctx, ann, url, []string{"order.created", "order.shipped"})
	annOffers, _ := f.svc.CreateAgent(ctx, ann, url, []string{"offer.received"})
	bobAcct, _ := f.svc.PutAccount(ctx, bob, url, nil)
	cidAcct, _ := f.svc.PutAccount(ctx, cid, url, nil)
	put := func(who market.Actor, p events.Prefs) {
		if err := f.db.InTx(ctx, func(tx *store.Tx) error { return tx.PutNotificationPrefs(ctx, who.UserID, p, t0) }); err != nil {
			t.Fatal(err)
		}
	}
	bobPrefs := events.DefaultPrefs()
	bobPrefs[events.CategoryOrders] = events.Switches{Email: true, Webhook: false}
	put(bob, bobPrefs)
	cidPrefs := events.DefaultPrefs()
	cidPrefs[events.CategoryOrders] = events.Switches{Email: false, Webhook: true}
	put(cid, cidPrefs)

	sink(t, f, "order.created", ann.UserID, bob.UserID, cid.UserID)
	sink(t, f, "offer.received", bob.UserID)
	sink(t, f, "listing.sold") // no recipients
	count := func(who market.Actor, ep *webhooks.Endpoint) int {
		t.Helper()
		var list []webhooks.Delivery
		var err error
		if ep.Kind == webhooks.KindAccount {
			list, err = f.svc.AccountDeliveries(ctx, who, 0)
		} else {
			list, err = f.svc.AgentDeliveries(ctx, who, ep.ID, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			if d.Status != webhooks.StatusPending || f.sched.jobs[d.ID] != 8 {
				t.Errorf("delivery %+v not pending and scheduled", d)
			}
		}
		return len(list)
	}
	for name, c := range map[string]struct {
		who  market.Actor
		ep   *webhooks.Endpoint
		want int
	}{
		"ann's account endpoint ('*')":           {ann, annAcct, 1},
		"ann's orders endpoint":                  {ann, annOrders, 1},
		"ann's offers endpoint":                  {ann, annOffers, 0},
		"bob (webhooks off for orders)":          {bob, bobAcct, 1}, // the offer only
		"cid (e-mail off for orders, not hooks)": {cid, cidAcct, 1},
	} {
		if got := count(c.who, c.ep); got != c.want {
			t.Errorf("%s: %d deliveries, want %d", name, got, c.want)
		}
	}
}
