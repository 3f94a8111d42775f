package api

import (
	"errors"
	"testing"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// TestWebhookSecret pins the rule both surfaces follow through WebhookOf:
// the signing secret is in the answer that made the endpoint (Variant A's
// PUT, Variant B's POST and create_webhook) and in no other.
func TestWebhookSecret(t *testing.T) {
	e := &webhooks.Endpoint{ID: "w1", URL: "https://example.com/hook", Secret: "whsec_abc", Events: []string{"*"},
		Enabled: false, DisabledReason: "410 Gone"}
	for _, c := range []struct {
		name    string
		created bool
		secret  string
	}{
		{"the answer that made it", true, "whsec_abc"},
		{"a read, list or delete", false, ""},
	} {
		v := WebhookOf(e, c.created)
		if v.Secret != c.secret {
			t.Errorf("%s: secret %q, want %q", c.name, v.Secret, c.secret)
		}
		if v.DisabledReason == nil || *v.DisabledReason != "410 Gone" {
			t.Errorf("%s: disabledReason %v", c.name, v.DisabledReason)
		}
	}
	if v := WebhookOf(&webhooks.Endpoint{ID: "w2", Enabled: true}, false); v.DisabledReason != nil {
		t.Errorf("an enabled endpoint: disabledReason %q, want null", *v.DisabledReason)
	}
}

// TestDeliveryOf pins the attempt log: an attempt that got no answer has
// a null status, a 2xx no error.
func TestDeliveryOf(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	d := DeliveryOf(&webhooks.Delivery{ID: "d1", EventID: "e1", EventType: "order.created", Status: "pending", Attempts: 2,
		LastError: "timeout", History: []webhooks.Attempt{
			{At: at, Error: "timeout", DurationMS: 10000},
			{At: at, StatusCode: 200, DurationMS: 12, Replay: true},
		}})
	if d.LastError == nil || *d.LastError != "timeout" || d.LastStatusCode != nil || len(d.AttemptLog) != 2 {
		t.Fatalf("%+v", d)
	}
	if a := d.AttemptLog[0]; a.StatusCode != nil || a.Error == nil || *a.Error != "timeout" {
		t.Errorf("unanswered attempt: %+v", a)
	}
	if a := d.AttemptLog[1]; a.StatusCode == nil || *a.StatusCode != 200 || a.Error != nil || !a.Replay {
		t.Errorf("answered replay: %+v", a)
	}
}

// TestDeliveryLimit pins the one reading of a delivery log's ?limit=.
func TestDeliveryLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		bad  bool
	}{
		{"", webhooks.DefaultDeliveryLimit, false},
		{"1", 1, false},
		{"100", 100, false},
		{"0", 0, true},
		{"101", 0, true},
		{"x", 0, true},
	} {
		n, err := DeliveryLimit(c.in)
		var me *market.Error
		if c.bad != (err != nil) || (err != nil && (!errors.As(err, &me) || me.Code != market.CodeValidation)) || n != c.want {
			t.Errorf("DeliveryLimit(%q) = %d, %v", c.in, n, err)
		}
	}
}
