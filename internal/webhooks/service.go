package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// checkEvents validates an event filter: public types or "*"; empty
// means every type.
func checkEvents(in []string) ([]string, error) {
	if len(in) == 0 {
		return []string{AllEvents}, nil
	}
	var out []string
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t != AllEvents && (!events.Public(t) || t == events.TypeTest) {
			return nil, market.Invalid(market.FieldError{Field: "events",
				Message: fmt.Sprintf("unknown event type %q; use '*' or one of %s", t, strings.Join(subscribable(), ", "))})
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if slices.Contains(out, AllEvents) {
		return []string{AllEvents}, nil
	}
	return out, nil
}

// subscribable are the types an endpoint may ask for (all public types
// but the test event, which is sent on request).
func subscribable() []string {
	return slices.DeleteFunc(events.Types(), func(t string) bool { return t == events.TypeTest })
}

// Subscribable lists the types an endpoint may subscribe to.
func Subscribable() []string { return subscribable() }

// account finds the user's account endpoint, or nil.
func account(ctx context.Context, tx Tx, userID string) (*Endpoint, error) {
	eps, err := tx.WebhookEndpoints(ctx, userID)
	if err != nil {
		return nil, err
	}
	for i := range eps {
		if eps[i].Kind == KindAccount {
			return &eps[i], nil
		}
	}
	return nil, nil
}

// ownAccount is the caller's account endpoint, NOT_FOUND when none is set.
func ownAccount(ctx context.Context, tx Tx, userID string) (*Endpoint, error) {
	ep, err := account(ctx, tx, userID)
	if err == nil && ep == nil {
		err = market.NotFound("webhook")
	}
	return ep, err
}

// PutAccount sets the caller's account endpoint (PUT /auth/me/webhook): a
// new secret every time, enabled again. evts is an optional filter.
func (s *Service) PutAccount(ctx context.Context, caller market.Actor, rawURL string, evts []string) (*Endpoint, error) {
	rawURL = strings.TrimSpace(rawURL)
	if err := s.guard.CheckURL(ctx, rawURL); err != nil {
		return nil, err
	}
	list, err := checkEvents(evts)
	if err != nil {
		return nil, err
	}
	var out *Endpoint
	err = s.store.InTx(ctx, func(tx Tx) error {
		ep, err := account(ctx, tx, caller.UserID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if ep == nil {
			ep = &Endpoint{ID: market.NewID(), UserID: caller.UserID, Kind: KindAccount, URL: rawURL, Secret: NewSecret(),
				Events: list, Enabled: true, CreatedAt: now, UpdatedAt: now}
			out = ep
			return tx.InsertWebhookEndpoint(ctx, ep)
		}
		ep.URL, ep.Secret, ep.Events, ep.Enabled, ep.DisabledReason, ep.UpdatedAt = rawURL, NewSecret(), list, true, "", now
		out = ep
		return tx.UpdateWebhookEndpoint(ctx, ep)
	})
	return out, err
}

// Account reads the caller's account endpoint (NOT_FOUND when none).
func (s *Service) Account(ctx context.Context, caller market.Actor) (*Endpoint, error) {
	return ownAccount(ctx, s.store.Read(), caller.UserID)
}

// DeleteAccount removes the caller's account endpoint and its deliveries.
func (s *Service) DeleteAccount(ctx context.Context, caller market.Actor) (*Endpoint, error) {
	var out *Endpoint
	err := s.store.InTx(ctx, func(tx Tx) error {
		ep, err := ownAccount(ctx, tx, caller.UserID)
		if err != nil {
			return err
		}
		out = ep
		return tx.DeleteWebhookEndpoint(ctx, ep.ID)
	})
	return out, err
}

// Test sends a webhook.test event to the caller's account endpoint only:
// the event is recorded with no recipient (it is in nobody's feed), and
// its delivery is made and enqueued here.
func (s *Service) Test(ctx context.Context, caller market.Actor) (*Delivery, error) {
	var out *Delivery
	err := s.store.InTx(ctx, func(tx Tx) error {
		ep, err := ownAccount(ctx, tx, caller.UserID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		e := &events.Event{ID: market.NewID(), Type: events.TypeTest, ActorType: caller.Type, ActorID: caller.ID(),
			EntityType: "webhook", EntityID: ep.ID, CreatedAt: now,
			Data: map[string]any{"webhook_id": ep.ID, "url": ep.URL, "message": "This is a test event."}}
		if e.ActorType == "" {
			e.ActorType = market.ActorSystem
		}
		if err := tx.AppendEvent(ctx, e); err != nil {
			return err
		}
		out, err = s.enqueue(ctx, tx, ep, e)
		return err
	})
	return out, err
}

// CreateAgent adds one of the owner's agent endpoints (POST
// /v1/agent/webhooks); at most MaxAgentEndpoints.
func (s *Service) CreateAgent(ctx context.Context, caller market.Actor, rawURL string, evts []string) (*Endpoint, error) {
	rawURL = strings.TrimSpace(rawURL)
	var fields []market.FieldError
	if err := s.guard.CheckURL(ctx, rawURL); err != nil {
		fields = append(fields, market.ErrorOf(err).Fields...)
	}
	list, err := checkEvents(evts)
	if err != nil {
		fields = append(fields, market.ErrorOf(err).Fields...)
	}
	if evts == nil {
		fields = append(fields, market.FieldError{Field: "events", Message: "is required: a list of event types, or [\"*\"]"})
	}
	if len(fields) > 0 {
		return nil, market.Invalid(fields...)
	}
	var out *Endpoint
	err = s.store.InTx(ctx, func(tx Tx) error {
		eps, err := tx.WebhookEndpoints(ctx, caller.UserID)
		if err != nil {
			return err
		}
		n := 0
		for _, e := range eps {
			if e.Kind == KindAgent {
				n++
			}
		}
		if n >= MaxAgentEndpoints {
			return market.Errorf(market.CodeValidation, "at most %d agent webhooks per owner; delete one first", MaxAgentEndpoints).
				WithDetails(map[string]any{"limit": MaxAgentEndpoints})
		}
		now := s.clock.Now()
		out = &Endpoint{ID: market.NewID(), UserID: caller.UserID, Kind: KindAgent, URL: rawURL, Secret: NewSecret(),
			Events: list, Snake: true, Enabled: true, CreatedAt: now, UpdatedAt: now}
		return tx.InsertWebhookEndpoint(ctx, out)
	})
	return out, err
}

// ListAgent lists the owner's agent endpoints, oldest first.
func (s *Service) ListAgent(ctx context.Context, caller market.Actor) ([]Endpoint, error) {
	eps, err := s.store.Read().WebhookEndpoints(ctx, caller.UserID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(eps, func(e Endpoint) bool { return e.Kind != KindAgent }), nil
}

// agentEndpoint reads one of the caller's agent endpoints; anyone else's
// is NOT_FOUND.
func agentEndpoint(ctx context.Context, tx Tx, caller market.Actor, id string) (*Endpoint, error) {
	ep, err := tx.WebhookEndpoint(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && (ep.UserID != caller.UserID || ep.Kind != KindAgent)) {
		return nil, market.NotFound("webhook")
	}
	return ep, err
}

// DeleteAgent removes one of the owner's agent endpoints.
func (s *Service) DeleteAgent(ctx context.Context, caller market.Actor, id string) (*Endpoint, error) {
	var out *Endpoint
	err := s.store.InTx(ctx, func(tx Tx) error {
		ep, err := agentEndpoint(ctx, tx, caller, id)
		if err != nil {
			return err
		}
		out = ep
		return tx.DeleteWebhookEndpoint(ctx, id)
	})
	return out, err
}

// DefaultDeliveryLimit and MaxDeliveryLimit bound a delivery log page.
const (
	DefaultDeliveryLimit = 50
	MaxDeliveryLimit     = 100
)

func clampLimit(n int) int {
	if n <= 0 {
		return DefaultDeliveryLimit
	}
	return min(n, MaxDeliveryLimit)
}

// AccountDeliveries lists the account endpoint's deliveries, newest first.
func (s *Service) AccountDeliveries(ctx context.Context, caller market.Actor, limit int) ([]Delivery, error) {
	tx := s.store.Read()
	ep, err := ownAccount(ctx, tx, caller.UserID)
	if err != nil {
		return nil, err
	}
	return tx.WebhookDeliveries(ctx, ep.ID, clampLimit(limit))
}

// AgentDeliveries lists an agent endpoint's deliveries, newest first.
func (s *Service) AgentDeliveries(ctx context.Context, caller market.Actor, endpointID string, limit int) ([]Delivery, error) {
	tx := s.store.Read()
	if _, err := agentEndpoint(ctx, tx, caller, endpointID); err != nil {
		return nil, err
	}
	return tx.WebhookDeliveries(ctx, endpointID, clampLimit(limit))
}

// RetryAccount sends a delivery of the account endpoint again now.
func (s *Service) RetryAccount(ctx context.Context, caller market.Actor, deliveryID string) (*Delivery, error) {
	ep, err := s.Account(ctx, caller)
	if err != nil {
		return nil, err
	}
	return s.replay(ctx, ep, deliveryID)
}

// RetryAgent sends a delivery of an agent endpoint again now.
func (s *Service) RetryAgent(ctx context.Context, caller market.Actor, endpointID, deliveryID string) (*Delivery, error) {
	ep, err := agentEndpoint(ctx, s.store.Read(), caller, endpointID)
	if err != nil {
		return nil, err
	}
	return s.replay(ctx, ep, deliveryID)
}

// replay is one synchronous attempt of a delivery of ep, recorded like
// any other; it works on delivered and failed deliveries too (a failed
// one that now succeeds becomes delivered).
func (s *Service) replay(ctx context.Context, ep *Endpoint, deliveryID string) (*Delivery, error) {
	tx := s.store.Read()
	d, err := tx.WebhookDelivery(ctx, deliveryID)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && d.EndpointID != ep.ID) {
		return nil, market.NotFound("delivery")
	}
	if err != nil {
		return nil, err
	}
	e, err := tx.EventByID(ctx, d.EventID)
	if err != nil {
		return nil, err
	}
	res := s.send(ctx, ep, e)
	return s.record(ctx, deliveryID, res, attemptReplay)
}

// Sink makes and enqueues the deliveries of a public event, inside the
// transaction that records it: for each recipient whose preferences let
// the event's category out on webhooks, one per enabled endpoint whose
// filter matches.
func (s *Service) Sink(ctx context.Context, tx Tx, e *events.Event) error {
	for _, u := range e.Recipients {
		eps, err := tx.WebhookEndpoints(ctx, u)
		if err != nil {
			return err
		}
		eps = slices.DeleteFunc(eps, func(ep Endpoint) bool { return !ep.Enabled || !ep.Matches(e.Type) })
		if len(eps) == 0 {
			continue
		}
		prefs, err := tx.NotificationPrefs(ctx, u)
		if err != nil {
			return err
		}
		if !prefs.Allows(e.Type, events.ChannelWebhook) {
			continue
		}
		for i := range eps {
			if _, err := s.enqueue(ctx, tx, &eps[i], e); err != nil {
				return err
			}
		}
	}
	return nil
}

// enqueue makes a pending delivery of e to ep and schedules its job.
func (s *Service) enqueue(ctx context.Context, tx Tx, ep *Endpoint, e *events.Event) (*Delivery, error) {
	if s.sched == nil {
		return nil, market.Internal(fmt.Errorf("webhooks: no scheduler"))
	}
	now := s.now().UTC()
	d := &Delivery{ID: market.NewID(), EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, Status: StatusPending,
		NextAttemptAt: &now, CreatedAt: now, History: []Attempt{}}
	if err := tx.InsertWebhookDelivery(ctx, d); err != nil {
		return nil, err
	}
	if err := s.sched.ScheduleDelivery(ctx, tx, d.ID, s.MaxAttempts()); err != nil {
		return nil, err
	}
	return d, nil
}

// Body is the JSON an endpoint receives for e. An agent endpoint is read
// by the owner's agents, so text another party wrote comes with
// content_trust as on the agent's feed (CONTRACT.md section 16); the
// account's own endpoint gets the event as a human reads it.
func Body(ep *Endpoint, e *events.Event) ([]byte, error) {
	owner := ""
	if ep.Kind == KindAgent {
		owner = ep.UserID
	}
	return json.Marshal(events.PayloadFor(e, ep.Snake, owner))
}

func (s *Service) send(ctx context.Context, ep *Endpoint, e *events.Event) Result {
	if s.guard.Live && !strings.HasPrefix(ep.URL, "https://") {
		return Result{Err: "live mode sends to https URLs only"}
	}
	if ep.Kind == KindPlatform {
		return s.sendPlatform(ctx, ep, e)
	}
	body, err := Body(ep, e)
	if err != nil {
		return Result{Err: "the event could not be encoded"}
	}
	return s.sender.Send(ctx, ep.URL, ep.Secret, e.ID, body)
}

// How an attempt came about.
type attemptKind int

const (
	attemptJob attemptKind = iota
	attemptFinal
	attemptReplay
)

// Deliver is the job's attempt at delivery id, its attempt-th (1-based)
// of MaxAttempts: it reports whether the job should try again later. A
// delivery that is no longer pending (delivered, failed, replayed) or
// whose endpoint is gone or disabled ends quietly.
func (s *Service) Deliver(ctx context.Context, id string, attempt, maxAttempts int) (retry bool, err error) {
	tx := s.store.Read()
	d, err := tx.WebhookDelivery(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return false, nil // the endpoint was deleted, and its deliveries with it
	}
	if err != nil {
		return true, err
	}
	if d.Status != StatusPending {
		return false, nil
	}
	ep, err := tx.WebhookEndpoint(ctx, d.EndpointID)
	if market.CodeOf(err) == market.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if !ep.Enabled {
		_, err := s.update(ctx, id, func(d *Delivery) {
			if d.Status == StatusPending {
				d.Status, d.NextAttemptAt, d.LastError = StatusFailed, nil, "the endpoint is disabled"
			}
		})
		return false, err
	}
	e, err := tx.EventByID(ctx, d.EventID)
	if err != nil {
		return true, err
	}
	kind := attemptJob
	if attempt >= maxAttempts {
		kind = attemptFinal
	}
	res := s.send(ctx, ep, e)
	d, err = s.recordAt(ctx, id, res, kind, attempt)
	if err != nil {
		return true, err
	}
	return d.Status == StatusPending, nil
}

func (s *Service) record(ctx context.Context, id string, res Result, kind attemptKind) (*Delivery, error) {
	return s.recordAt(ctx, id, res, kind, 0)
}

// recordAt appends an attempt to delivery id's history and moves it on:
// 2xx delivered; 410 failed with the endpoint disabled; otherwise pending
// until the last attempt of the job (failed then). A replay never makes a
// delivery pending again, nor a delivered one failed.
func (s *Service) recordAt(ctx context.Context, id string, res Result, kind attemptKind, jobAttempt int) (*Delivery, error) {
	var out *Delivery
	err := s.store.InTx(ctx, func(tx Tx) error {
		d, err := tx.WebhookDelivery(ctx, id)
		if err != nil {
			return err
		}
		now := s.now().UTC()
		a := Attempt{At: now.Add(-res.Duration), StatusCode: res.StatusCode, Error: res.Err, DurationMS: res.Duration.Milliseconds(),
			Replay: kind == attemptReplay}
		d.History = append(d.History, a)
		d.Attempts++
		if res.StatusCode != 0 {
			code := res.StatusCode
			d.LastStatusCode = &code
		} else {
			d.LastStatusCode = nil
		}
		d.LastError = res.Err
		switch {
		case res.OK():
			d.Status, d.NextAttemptAt, d.DeliveredAt = StatusDelivered, nil, &now
		case res.StatusCode == 410:
			if d.Status != StatusDelivered {
				d.Status, d.NextAttemptAt = StatusFailed, nil
			}
			ep, err := tx.WebhookEndpoint(ctx, d.EndpointID)
			if err != nil {
				return err
			}
			if ep.Enabled {
				ep.Enabled, ep.DisabledReason, ep.UpdatedAt = false, "the endpoint answered 410 Gone", s.clock.Now()
				if err := tx.UpdateWebhookEndpoint(ctx, ep); err != nil {
					return err
				}
			}
		case kind == attemptReplay:
			// A pending delivery keeps its schedule; a finished one stays.
		case kind == attemptFinal:
			d.Status, d.NextAttemptAt = StatusFailed, nil
		default:
			next := now.Add(s.RetryDelay(id, jobAttempt))
			d.NextAttemptAt = &next
		}
		out = d
		return tx.UpdateWebhookDelivery(ctx, d)
	})
	return out, err
}

// update changes a delivery in a transaction.
func (s *Service) update(ctx context.Context, id string, f func(*Delivery)) (*Delivery, error) {
	var out *Delivery
	err := s.store.InTx(ctx, func(tx Tx) error {
		d, err := tx.WebhookDelivery(ctx, id)
		if err != nil {
			return err
		}
		f(d)
		out = d
		return tx.UpdateWebhookDelivery(ctx, d)
	})
	return out, err
}
