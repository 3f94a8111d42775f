package apiv1_test

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"marketplace/internal/events"
	"marketplace/internal/notify"
	"marketplace/internal/testkit"
)

// TestNotificationPrefs: defaults all on, a PUT merges, GET reads it back,
// bad names and shapes are VALIDATION_ERRORs naming the field, bearer only.
func TestNotificationPrefs(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		const path = "/api/v1/auth/me/notification-prefs"
		u := s.Register("prefs")
		cats := func(r *testkit.Response) map[string]any { return testkit.Obj(t, r.Data(), "categories") }
		d := cats(s.Do("GET", path, nil, u.Auth()).Want(t, http.StatusOK, ""))
		for _, c := range events.Categories {
			if sw := testkit.Obj(t, d, c); sw["email"] != true || sw["webhook"] != true {
				t.Fatalf("default %s = %v, want both on", c, sw)
			}
		}

		// One channel of one category: the rest keeps its value.
		d = cats(s.Do("PUT", path, map[string]any{"categories": map[string]any{"orders": map[string]any{"email": false}}},
			u.Auth()).Want(t, http.StatusOK, ""))
		if o := testkit.Obj(t, d, "orders"); o["email"] != false || o["webhook"] != true {
			t.Fatalf("orders after PUT = %v", o)
		}
		s.Do("PUT", path, map[string]any{"categories": map[string]any{"offers": map[string]any{"webhook": false, "email": false}}},
			u.Auth()).Want(t, http.StatusOK, "")
		d = cats(s.Do("GET", path, nil, u.Auth()).Want(t, http.StatusOK, ""))
		if o, f, m := testkit.Obj(t, d, "orders"), testkit.Obj(t, d, "offers"), testkit.Obj(t, d, "messages"); o["email"] != false ||
			o["webhook"] != true || f["email"] != false || f["webhook"] != false || m["email"] != true {
			t.Fatalf("prefs after two PUTs = %v", d)
		}

		s.Unchecked = true // the document refuses these too; the server must name the field
		for _, tc := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "categories"},
			{map[string]any{"categories": nil}, "categories"},
			{map[string]any{"categories": []any{}}, "categories"},
			{map[string]any{"categories": map[string]any{"shipping": map[string]any{"email": true}}}, "categories.shipping"},
			{map[string]any{"categories": map[string]any{"orders": map[string]any{"email": "no"}}}, "categories.orders.email"},
			{map[string]any{"categories": map[string]any{"orders": map[string]any{"email": nil}}}, "categories.orders.email"},
			{map[string]any{"categories": map[string]any{"orders": true}}, "categories.orders"},
		} {
			r := s.Do("PUT", path, tc.body, u.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
			if !slices.Contains(r.Fields(), tc.field) {
				t.Errorf("PUT %v: fields %v, want %s", tc.body, r.Fields(), tc.field)
			}
		}
		s.Unchecked = false
		// Nothing of a refused PUT was saved.
		if o := testkit.Obj(t, cats(s.Do("GET", path, nil, u.Auth()).Want(t, http.StatusOK, "")), "orders"); o["email"] != false {
			t.Fatalf("orders after refused PUTs = %v", o)
		}

		s.Do("GET", path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("PUT", path, map[string]any{"categories": map[string]any{}}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		key := s.NewKey(u, "buy_sell")
		s.Do("GET", path, nil, key.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
	})
}

// TestEmailPreferencesRespected: with order e-mails off, the seller gets
// no order mail while the buyer does; the seller's feed still has the
// event. Without SMTP the mails are kept in the outbox.
func TestEmailPreferencesRespected(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("quietseller")
		buyer := s.NewShopper("loudbuyer", "pm_card_visa")
		s.Do("PUT", "/api/v1/auth/me/notification-prefs", map[string]any{"categories": map[string]any{
			"orders": map[string]any{"email": false}}}, seller.Auth()).Want(t, http.StatusOK, "")
		listing := s.ActiveListing(seller, "Brass desk lamp with green glass shade, working", 4200)
		s.Do("POST", purchPath, purchBody(listing, 10000), buyer.Key.Auth()).Want(t, http.StatusCreated, "")

		kinds := func(u *testkit.User) []string {
			ms, err := s.App.Notify.Outbox(t.Context(), u.ID, 100)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range ms {
				if m.Status != notify.StatusKept {
					t.Errorf("mail %s is %s, want kept (no SMTP server)", m.Kind, m.Status)
				}
				out = append(out, m.Kind)
			}
			return out
		}
		if k := kinds(buyer.User); !slices.Contains(k, "order.created") {
			t.Fatalf("buyer's mails %v, want order.created", k)
		}
		if k := kinds(seller); slices.Contains(k, "order.created") {
			t.Fatalf("seller's mails %v: order e-mails are off", k)
		} else if !slices.Contains(k, "listing.sold") {
			t.Fatalf("seller's mails %v, want listing.sold (listings are still on)", k)
		}
		// A long poll: on PostgreSQL the feed shows an event once every
		// older transaction on the server has ended.
		entries, _, err := s.App.Feed.Page(t.Context(), seller.ID, "", []string{"order.created"}, 100, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(entries, func(e events.FeedEntry) bool { return e.Event.Type == "order.created" }) {
			t.Fatalf("the seller's feed lacks order.created: %v", entries)
		}
	})
}

// TestEmailThroughSMTP sends order and offer mails through a real SMTP
// server (in process, PLAIN auth): each arrives at its recipient, with a
// text and an HTML part and the amounts in dollars.
func TestEmailThroughSMTP(t *testing.T) {
	t.Parallel()
	box := startSMTP(t)
	testkit.Run(t, testkit.Options{WithJobs: true, SMTPURL: box.url}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("mailseller")
		buyer := s.NewShopper("mailbuyer", "pm_card_visa")
		listing := s.ActiveListing(seller, "Cast iron dutch oven, five quart, enamel intact", 8345)
		o := s.Do("POST", purchPath, purchBody(listing, 20000), buyer.Key.Auth()).Want(t, http.StatusCreated, "").Data()
		bought := time.Now()
		total := testkit.Num(t, testkit.Obj(t, o, "fees"), "totalCharged")

		bm := box.wait(t, buyer.Email, "Order placed")
		t.Logf("commit to SMTP delivery: %v", time.Since(bought).Round(time.Millisecond))
		if !strings.Contains(bm.subject, notify.Dollars(total)) || !strings.Contains(bm.text, "Item: $83.45") ||
			!strings.Contains(bm.text, "Total charged: "+notify.Dollars(total)) || !strings.Contains(bm.html, "<b>"+notify.Dollars(total)+"</b>") ||
			!strings.Contains(bm.text, s.URL+"/api/v1/orders/"+o["id"].(string)) {
			t.Fatalf("buyer's order mail:\n%s\n%s\n%s", bm.subject, bm.text, bm.html)
		}
		sm := box.wait(t, seller.Email, "You sold")
		if !strings.Contains(sm.subject, "$83.45") || !strings.Contains(sm.text, "sold for $83.45") || !strings.Contains(sm.html, "$83.45") {
			t.Fatalf("seller's order mail:\n%s\n%s\n%s", sm.subject, sm.text, sm.html)
		}
		for _, m := range []smtpMail{bm, sm} {
			if m.from == "" || m.date == "" || m.messageID == "" || m.mimeVersion != "1.0" {
				t.Fatalf("headers of %q: %+v", m.subject, m)
			}
		}

		// An offer: the seller hears of it.
		sc := newOfferScene(t, s, "mailoffer")
		s.Do("POST", "/api/v1/agent/offers", map[string]any{"listingId": sc.listing, "offerPrice": 6050}, sc.buyer.Key.Auth()).
			Want(t, http.StatusCreated, "")
		om := box.wait(t, sc.seller.Email, "New offer")
		if !strings.Contains(om.subject, "$60.50") || !strings.Contains(om.text, "offer of $60.50") || !strings.Contains(om.html, "$60.50") {
			t.Fatalf("offer mail:\n%s\n%s\n%s", om.subject, om.text, om.html)
		}
		if n := box.count(sc.buyer.Email, "New offer"); n != 0 {
			t.Fatalf("the buyer got %d offer.received mails: it made the offer", n)
		}

		// The outbox says they were sent.
		deadline := time.Now().Add(10 * time.Second)
		for {
			ms, err := s.App.Notify.Outbox(t.Context(), buyer.ID, 100)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ms, func(m notify.Mail) bool { return m.Kind == "order.created" })
			if i >= 0 && ms[i].Status == notify.StatusSent && ms[i].SentAt != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("buyer's outbox: %+v", ms)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// smtpMail is a message the test server received, parsed.
type smtpMail struct {
	to, from, subject, date, messageID, mimeVersion string
	text, html                                      string
}

type smtpBox struct {
	url  string
	mu   sync.Mutex
	got  []smtpMail
	errs []error
}

// startSMTP runs an SMTP server on 127.0.0.1 that requires PLAIN auth and
// keeps every message it receives.
func startSMTP(t *testing.T) *smtpBox {
	t.Helper()
	box := &smtpBox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{box: box}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	box.url = "smtp://mailer:s3cret@" + ln.Addr().String()
	return box
}

// wait returns the first message to `to` whose subject contains subject.
func (b *smtpBox) wait(t *testing.T, to, subject string) smtpMail {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		errs := b.errs
		for _, m := range b.got {
			if m.to == to && strings.Contains(m.subject, subject) {
				b.mu.Unlock()
				return m
			}
		}
		b.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("smtp server: %v", errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no mail %q to %s arrived", subject, to)
	return smtpMail{}
}

func (b *smtpBox) count(to, subject string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, m := range b.got {
		if m.to == to && strings.Contains(m.subject, subject) {
			n++
		}
	}
	return n
}

type smtpSession struct {
	box    *smtpBox
	authed bool
	to     []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != "mailer" || pass != "s3cret" {
			return errors.New("bad credentials")
		}
		s.authed = true
		return nil
	}), nil
}

func (s *smtpSession) Mail(string, *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	m, err := parseMail(r)
	s.box.mu.Lock()
	defer s.box.mu.Unlock()
	if err != nil {
		s.box.errs = append(s.box.errs, err)
		return err
	}
	for _, to := range s.to {
		m.to = to
		s.box.got = append(s.box.got, m)
	}
	return nil
}

func (s *smtpSession) Reset()        { s.to = nil }
func (s *smtpSession) Logout() error { return nil }

// parseMail reads a multipart/alternative message with a text and an HTML
// part.
func parseMail(r io.Reader) (smtpMail, error) {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return smtpMail{}, err
	}
	h := msg.Header
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if err != nil {
		return smtpMail{}, err
	}
	out := smtpMail{from: h.Get("From"), subject: subject, date: h.Get("Date"), messageID: h.Get("Message-Id"),
		mimeVersion: h.Get("Mime-Version")}
	if _, err := mail.ParseDate(out.date); err != nil {
		return out, err
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		return out, errors.New("not multipart/alternative: " + h.Get("Content-Type"))
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return out, err
		}
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			out.text = strings.ReplaceAll(string(body), "\r\n", "\n")
		case "text/html":
			out.html = string(body)
		}
	}
	if out.text == "" || out.html == "" {
		return out, errors.New("a part is missing")
	}
	return out, nil
}

// TestEmailSMTPDown: a mail the SMTP server cannot take stays queued with
// its error and attempts recorded (the job retries it).
func TestEmailSMTPDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	testkit.Run(t, testkit.Options{WithJobs: true, SMTPURL: "smtp://" + addr}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("downowner")
		s.Do("POST", "/api/v1/seller/connect", nil, u.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/seller/connect/send-link", map[string]any{"channel": "email"}, u.Auth()).Want(t, http.StatusOK, "")
		deadline := time.Now().Add(15 * time.Second)
		for {
			ms, err := s.App.Notify.Outbox(t.Context(), u.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 1 || ms[0].Kind != notify.KindPayoutLink {
				t.Fatalf("outbox: %+v", ms)
			}
			if m := ms[0]; m.Attempts >= 1 {
				if m.Status != notify.StatusQueued || m.LastError == "" || m.SentAt != nil {
					t.Fatalf("failed mail: %+v", m)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no attempt recorded: %+v", ms)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
