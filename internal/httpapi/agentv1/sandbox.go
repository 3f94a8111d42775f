package agentv1

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// SandboxClock is the service clock the sandbox moves: every time-based rule
// reads it, so advancing it ages offers, holds, reservations and spending
// windows at once. An advance is kept (sandbox.Clock stores it).
type SandboxClock interface {
	market.Clock
	Advance(ctx context.Context, d time.Duration) error
}

// MaxAdvanceHours is the most one time-advance call moves the clock
// (CONTRACT.md section 10).
const MaxAdvanceHours = 720

// RegisterSandbox adds the sandbox helpers under /v1/sandbox. Call it in
// sandbox mode only: in live mode these paths must not exist (404).
func (a *API) RegisterSandbox(rt *httpapi.Router, clock SandboxClock) {
	rt = rt.In("sandbox")
	if clock == nil {
		panic("agentv1: the sandbox needs a clock that advances")
	}
	sb := &sandboxOps{api: a, clock: clock}
	p := Prefix + "/sandbox"
	rt.Handle("POST", p+"/time-advance/{hours}", httpapi.Either, sb.advance)
	rt.Handle("POST", p+"/reset", httpapi.Either, sb.reset)
	rt.Handle("POST", p+"/simulate/delivery/{order_id}", httpapi.Either, sb.simulateDelivery)
	rt.Handle("POST", p+"/simulate/dispute/{order_id}", httpapi.Either, sb.simulateDispute)
	rt.Handle("POST", p+"/discord/code", httpapi.Either, sb.discordCode)
}

type sandboxOps struct {
	api   *API
	clock SandboxClock
}

type advanced struct {
	AdvancedHours int       `json:"advanced_hours" minimum:"1" maximum:"720" doc:"How far this call moved the clock."`
	Now           time.Time `json:"now" doc:"The service clock after the move (UTC)."`
	OrdersChanged int       `json:"orders_changed" minimum:"0" doc:"Orders the sweeps moved (expired, delivered, paid out, refunded)."`
	OrdersFailed  int       `json:"orders_failed" minimum:"0" doc:"Sweep steps that failed this time; the periodic job retries them."`
	OffersExpired int       `json:"offers_expired" minimum:"0" doc:"Offers whose round (or accepted offer's purchase window) ran out, now 'expired'."`
	OffersFailed  int       `json:"offers_failed" minimum:"0" doc:"Offer expiries that failed this time; the periodic job retries them."`
}

// advance is POST /v1/sandbox/time-advance/{hours}: the clock moves, then
// the sweeps the periodic job runs (reservations that ran out, holds that
// ended, shipments nobody confirmed) run at once, so the caller sees their
// effect in this answer's wake.
func (sb *sandboxOps) advance(w http.ResponseWriter, r *http.Request) error {
	hours, ok := advanceHours(r.PathValue("hours"))
	if !ok {
		return market.Invalid(market.FieldError{Field: "hours", Message: "must be a whole number from 1 to " +
			strconv.Itoa(MaxAdvanceHours)})
	}
	ctx := r.Context()
	if err := sb.clock.Advance(ctx, time.Duration(hours)*time.Hour); err != nil {
		return err
	}
	// The clock has moved whatever follows: a failed sweep step is reported
	// (the periodic job retries it), never answered as an error, which a
	// client would retry and so advance twice.
	reconciled, err1 := sb.api.Orders.Reconcile(ctx)
	released, err2 := sb.api.Orders.ReleasePayouts(ctx)
	expired, err3 := sb.api.Offers.ExpireDue(ctx)
	return httpapi.OK(w, r, http.StatusOK, advanced{AdvancedHours: hours, Now: sb.clock.Now(),
		OrdersChanged: reconciled + released, OrdersFailed: failures(err1) + failures(err2),
		OffersExpired: expired, OffersFailed: failures(err3)})
}

// advanceHours parses a time-advance's hours: digits only, 1 to
// MaxAdvanceHours.
func advanceHours(s string) (int, bool) {
	if s == "" || len(s) > 4 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= MaxAdvanceHours
}

// failures counts the failed steps an orders sweep reports (it joins one
// error per order it could not move).
func failures(err error) int {
	if err == nil {
		return 0
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		return len(joined.Unwrap())
	}
	return 1
}

type cleared struct {
	ListingsDeleted        int64 `json:"listings_deleted" minimum:"0" doc:"The caller's listings no order named, deleted."`
	ListingsArchived       int64 `json:"listings_archived" minimum:"0" doc:"The caller's listings still on sale that another user ordered once, archived."`
	ListingsKept           int64 `json:"listings_kept" minimum:"0" doc:"The caller's listings left as they were (reserved or sold for another user, or retired already)."`
	OrdersDeleted          int64 `json:"orders_deleted" minimum:"0" doc:"Orders the caller bought that were settled or never went ahead, deleted."`
	OrdersKept             int64 `json:"orders_kept" minimum:"0" doc:"Orders the caller bought that are still moving money, kept."`
	WatchesDeleted         int64 `json:"watches_deleted" minimum:"0"`
	ThreadsDeleted         int64 `json:"threads_deleted" minimum:"0" doc:"Message threads the caller was part of (as buyer or seller), deleted with their messages."`
	OffersDeleted          int64 `json:"offers_deleted" minimum:"0" doc:"Offers the caller made, and offers on the caller's listings, deleted."`
	SpendingRecordsDeleted int64 `json:"spending_records_deleted" minimum:"0" doc:"Agent spending records (one per agent purchase) deleted."`
	IdempotencyKeysDeleted int64 `json:"idempotency_keys_deleted" minimum:"0"`
}

// reset is POST /v1/sandbox/reset: the caller's (for an agent, its owner's)
// own data is cleared; the account, keys and payment methods stay.
func (sb *sandboxOps) reset(w http.ResponseWriter, r *http.Request) error {
	p := httpapi.PrincipalOf(r)
	httpapi.Entity(r, "user", p.User.ID)
	c, err := sb.api.SandboxStore.SandboxReset(r.Context(), p.User.ID, sb.clock.Now())
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, cleared{ListingsDeleted: c.ListingsDeleted, ListingsArchived: c.ListingsArchived,
		ListingsKept: c.ListingsKept, OrdersDeleted: c.OrdersDeleted, OrdersKept: c.OrdersKept, WatchesDeleted: c.Watches,
		ThreadsDeleted: c.Threads, OffersDeleted: c.Offers, SpendingRecordsDeleted: c.SpendingRecords, IdempotencyKeysDeleted: c.IdempotencyKeys})
}

// simulateDelivery is POST /v1/sandbox/simulate/delivery/{order_id}: the
// carrier reports a shipped order delivered, which starts the hold period.
// Only someone who may see the order may simulate it (its buyer, its seller,
// an admin); the move itself is the carrier's, made as the system.
func (sb *sandboxOps) simulateDelivery(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("order_id")
	httpapi.Entity(r, "order", id)
	p := httpapi.PrincipalOf(r)
	ctx := r.Context()
	if _, err := sb.api.Orders.Get(ctx, p.Actor, id); err != nil {
		return err
	}
	o, err := sb.api.Orders.ConfirmDelivery(ctx, market.Actor{Type: market.ActorSystem}, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, api.OrderOf(o, p.Actor))
}
