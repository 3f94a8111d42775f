package notify

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"math"
	"strconv"
	"strings"
	texttemplate "text/template"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
)

// The templates: mail.txt defines "<kind>.subject" and "<kind>" (the plain
// text body) for each kind, mail.html "<kind>" (the HTML body, inside the
// "layout"). A subject that renders empty means no mail for that reader.
//
//go:embed templates/mail.txt templates/mail.html
var templateFS embed.FS

var funcs = map[string]any{"dollars": Dollars, "str": str, "has": has}

var (
	textT = texttemplate.Must(texttemplate.New("mail.txt").Funcs(funcs).ParseFS(templateFS, "templates/mail.txt"))
	htmlT = htmltemplate.Must(htmltemplate.New("mail.html").Funcs(funcs).ParseFS(templateFS, "templates/mail.html"))
)

// mailedTypes are the public event types that make a mail (the webhook
// test and listing.created/ai_complete do not: the seller is the actor).
var mailedTypes = map[string]bool{
	"order.created": true, "order.shipped": true, "order.delivered": true, "order.disputed": true,
	"order.cancelled": true, "order.completed": true, "refund.issued": true, "payment.released": true,
	"offer.received": true, "offer.accepted": true, "offer.rejected": true, "offer.countered": true,
	"offer.expired": true, "message.received": true, "listing.sold": true, "listing.updated": true,
	"approval.required": true, "agent_key.frozen": true,
}

func mailed(typ string) bool { return mailedTypes[typ] }

// view is what a template reads.
type view struct {
	Name  string         // the reader's display name (or e-mail address)
	Role  string         // buyer, seller, watcher, owner
	Title string         // the listing's title, when one is involved
	Data  map[string]any // the event's data, in canonical (snake_case) names
	Link  string         // where to look, on the service
	Base  string         // the service's public URL
	// Direct mails.
	URL       string
	Agent     string
	ExpiresAt string
}

// eventView builds the view of e for recipient u; nil means no mail.
func (s *Service) eventView(ctx context.Context, tx Tx, e *events.Event, u *accounts.User) *view {
	d := events.Canonical(e.Data) // an event queued before the names were canonical has camelCase ones
	v := &view{Name: displayName(u), Data: d, Base: s.opts.PublicURL}
	switch u.ID {
	case str(d["buyer_id"]):
		v.Role = "buyer"
	case str(d["seller_id"]):
		v.Role = "seller"
	default:
		v.Role = "owner"
	}
	if e.Type == "listing.updated" {
		if v.Role == "seller" {
			return nil // the seller made the change, or heard of it in the feed
		}
		v.Role = "watcher"
	}
	v.Title = str(d["listing_title"])
	if v.Title == "" {
		v.Title = str(d["title"])
	}
	if v.Title == "" && str(d["listing_id"]) != "" {
		if l, err := tx.ListingByID(ctx, str(d["listing_id"])); err == nil {
			v.Title = l.Title
		}
	}
	if v.Title == "" {
		v.Title = "your listing"
	}
	api := s.opts.PublicURL + "/api/v1"
	switch {
	case str(d["order_id"]) != "" && e.Type != "listing.updated":
		v.Link = api + "/orders/" + str(d["order_id"])
	case str(d["offer_id"]) != "":
		v.Link = api + "/offers/" + str(d["offer_id"])
	case str(d["thread_id"]) != "":
		v.Link = api + "/messages/threads/" + str(d["thread_id"])
	case str(d["listing_id"]) != "":
		v.Link = api + "/listings/" + str(d["listing_id"])
	case e.Type == "agent_key.frozen":
		v.Link = api + "/agent-keys"
	}
	return v
}

func displayName(u *accounts.User) string {
	if u.DisplayName != "" {
		return u.DisplayName
	}
	if u.Username != "" {
		return u.Username
	}
	return u.Email
}

// render renders kind's subject, text and HTML for v.
func render(kind string, v *view) (subject, text, html string, err error) {
	var b bytes.Buffer
	if err = textT.ExecuteTemplate(&b, kind+".subject", v); err != nil {
		return
	}
	subject = strings.Join(strings.Fields(b.String()), " ")
	if subject == "" {
		return "", "", "", nil
	}
	b.Reset()
	if err = textT.ExecuteTemplate(&b, kind, v); err != nil {
		return
	}
	text = tidy(b.String())
	b.Reset()
	if err = htmlT.ExecuteTemplate(&b, "layout", struct {
		Kind    string
		Subject string
		V       *view
	}{kind, subject, v}); err != nil {
		return
	}
	return subject, text, b.String(), nil
}

// tidy trims each line and drops runs of blank lines left by template
// actions.
func tidy(s string) string {
	var out []string
	blank := true
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// Dollars formats an amount in cents as dollars, exactly: 123456 ->
// "$1,234.56", -5 -> "-$0.05".
func Dollars(v any) string {
	cents, ok := toCents(v)
	if !ok {
		return ""
	}
	sign := ""
	if cents < 0 {
		sign = "-"
		if cents == math.MinInt64 {
			return "-$92,233,720,368,547,758.08"
		}
		cents = -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return fmt.Sprintf("%s$%s.%02d", sign, b.String(), cents%100)
}

func toCents(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case *int64:
		if n != nil {
			return *n, true
		}
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// str is v as a string ("" unless it is one).
func str(v any) string {
	s, _ := v.(string)
	return s
}

// has reports whether m has key with a value that is not nil.
func has(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v != nil
}
