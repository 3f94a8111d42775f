package agentv1

import (
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/notify"
)

// RegisterOutbox adds GET /v1/sandbox/outbox (sandbox mode only): the
// mails the service sent or kept for the caller.
func (a *API) RegisterOutbox(rt *httpapi.Router) {
	rt = rt.In("sandbox")
	rt.Handle("GET", Prefix+"/sandbox/outbox", httpapi.Either, a.outbox)
}

// outboxMail is one mail of the outbox on the wire.
type outboxMail struct {
	ID        string     `json:"id"`
	To        string     `json:"to" doc:"The address it went to."`
	Subject   string     `json:"subject"`
	Text      string     `json:"text" doc:"The plain text part."`
	HTML      string     `json:"html" doc:"The HTML part."`
	Kind      string     `json:"kind" example:"order.created" doc:"The event type it tells of, or 'onboarding.magic_link' or 'payout_account.onboarding_link'."`
	Status    string     `json:"status" enum:"kept,queued,sent,failed" doc:"'kept': no SMTP server is configured, the mail is only here; 'queued': waiting for the SMTP job; 'sent'; 'failed': the job gave up."`
	CreatedAt time.Time  `json:"created_at"`
	SentAt    *time.Time `json:"sent_at" doc:"When the SMTP server took it; null unless sent."`
}

type outboxList struct {
	Messages []outboxMail `json:"messages" doc:"Newest first."`
}

// outboxLimit bounds a page of the outbox.
const (
	outboxDefault = 50
	outboxMax     = 100
)

// outbox is GET /v1/sandbox/outbox: the caller's mails (an agent key's
// owner's), and those sent to the caller's address before the account
// existed (the onboarding magic link), newest first.
func (a *API) outbox(w http.ResponseWriter, r *http.Request) error {
	limit := outboxDefault
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > outboxMax {
			return market.Invalid(market.FieldError{Field: "limit", Message: "must be a whole number from 1 to " + strconv.Itoa(outboxMax)})
		}
		limit = n
	}
	ms, err := a.Notify.Outbox(r.Context(), actor(r).UserID, limit)
	if err != nil {
		return err
	}
	out := outboxList{Messages: make([]outboxMail, 0, len(ms))}
	for _, m := range ms {
		out.Messages = append(out.Messages, toOutboxMail(m))
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

func toOutboxMail(m notify.Mail) outboxMail {
	return outboxMail{ID: m.ID, To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML, Kind: m.Kind, Status: m.Status,
		CreatedAt: m.CreatedAt, SentAt: m.SentAt}
}
