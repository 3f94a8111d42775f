package notify

import (
	"bytes"
	"io"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func TestDollars(t *testing.T) {
	for in, want := range map[int64]string{0: "$0.00", 5: "$0.05", 99: "$0.99", 100: "$1.00", 123456: "$1,234.56",
		100000000: "$1,000,000.00", -5: "-$0.05", -123456: "-$1,234.56"} {
		if got := Dollars(in); got != want {
			t.Errorf("Dollars(%d) = %q, want %q", in, got, want)
		}
	}
	if Dollars(float64(1999)) != "$19.99" || Dollars(1999) != "$19.99" || Dollars("x") != "" || Dollars(nil) != "" {
		t.Error("Dollars of other types")
	}
}

// TestEveryKindRenders renders each mail kind for each reader: a subject,
// a text and an HTML body, no missing value.
func TestEveryKindRenders(t *testing.T) {
	data := map[string]any{"orderId": "o1", "listingId": "l1", "offerId": "f1", "threadId": "t1", "buyerId": "b", "sellerId": "s",
		"itemPrice": int64(8345), "shippingCost": int64(0), "serviceFee": int64(292), "totalCharged": int64(8637),
		"amountRefunded": int64(1000), "amount": int64(6050), "agreedPrice": int64(7000), "price": int64(4000),
		"previousPrice": int64(5000), "priceDrop": true, "round": 2, "maxRounds": 3, "carrier": "usps",
		"trackingNumber": "9400", "label": "shopping bot", "prefix": "mk_test_ab", "status": "active",
		"fulfillmentType": "ship", "sentByAgent": true}
	sparse := map[string]any{"listingId": "l1"}
	kinds := []string{KindOnboardingLink, KindPayoutLink}
	for k := range mailedTypes {
		kinds = append(kinds, k)
	}
	for _, kind := range kinds {
		for i, role := range []string{"buyer", "seller", "watcher", "owner", "watcher"} {
			d := data
			if i == 4 {
				d = sparse // a snapshot without most fields still reads
			}
			v := &view{Name: "Ada", Role: role, Title: "Brass lamp & <shade>", Data: d, Link: "http://x/api/v1/orders/o1",
				Base: "http://x", URL: "http://x/link?t=1&u=2", Agent: "Bot", ExpiresAt: "Jun 11, 2026 12:00 UTC"}
			subject, text, html, err := render(kind, v)
			if err != nil {
				t.Fatalf("%s/%s: %v", kind, role, err)
			}
			if subject == "" || text == "" || html == "" {
				t.Fatalf("%s/%s: empty part: %q %q %q", kind, role, subject, text, html)
			}
			for _, part := range []string{subject, text, html} {
				if strings.Contains(part, "<no value>") || strings.Contains(part, "%!") {
					t.Fatalf("%s/%s: missing value in %q", kind, role, part)
				}
			}
			if strings.Contains(html, "<shade>") {
				t.Fatalf("%s/%s: HTML not escaped: %s", kind, role, html)
			}
		}
	}
	_, text, html, _ := render(KindOnboardingLink, &view{Agent: "Bot", URL: "http://x/link?t=1&u=2"})
	if !strings.Contains(text, "http://x/link?t=1&u=2") || !strings.Contains(html, `href="http://x/link?t=1&amp;u=2"`) {
		t.Fatalf("the link is not in the onboarding mail:\n%s\n%s", text, html)
	}
}

// TestCompose: the headers a mail needs, a non-ASCII subject encoded, both
// parts.
func TestCompose(t *testing.T) {
	m := &Mail{ID: "m1", To: "ada@example.com", Subject: "Prix baissé: 5 €", Text: "Bonjour\nligne 2", HTML: "<p>Bonjour</p>"}
	raw, err := compose("Marketplace <no-reply@example.com>", m, time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Header
	if s := h.Get("Subject"); !strings.HasPrefix(s, "=?utf-8?q?") {
		t.Fatalf("subject not encoded: %q", s)
	}
	if s, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject")); s != m.Subject {
		t.Fatalf("subject decodes to %q", s)
	}
	if h.Get("From") == "" || h.Get("To") != "ada@example.com" || h.Get("Mime-Version") != "1.0" ||
		!strings.HasSuffix(h.Get("Message-Id"), "@example.com>") || h.Get("Date") != "Wed, 10 Jun 2026 12:00:00 +0000" {
		t.Fatalf("headers: %v", h)
	}
	body, _ := io.ReadAll(msg.Body)
	if !strings.Contains(string(body), "text/plain; charset=utf-8") || !strings.Contains(string(body), "text/html; charset=utf-8") {
		t.Fatalf("body: %s", body)
	}
}
